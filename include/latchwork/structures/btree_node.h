// Moved: this header is now <latchwork/structures/jasny/btree_node.h> (Jasny et al.'s
// structures have their own folder). This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/structures/btree_node.h> moved to <latchwork/structures/jasny/btree_node.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/structures/jasny/btree_node.h"
