// Moved: this header is now <latchwork/repro/jasny/btree_workload.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/btree_workload.h> moved to <latchwork/repro/jasny/btree_workload.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/jasny/btree_workload.h"
