// Moved: this header is now <latchwork/structures/jasny/tuple_store.h> (Jasny et al.'s
// structures have their own folder). This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/structures/tuple_store.h> moved to <latchwork/structures/jasny/tuple_store.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/structures/jasny/tuple_store.h"
