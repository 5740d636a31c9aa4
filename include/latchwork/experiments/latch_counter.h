// Moved: this header is now <latchwork/repro/jasny/latch_counter.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/latch_counter.h> moved to <latchwork/repro/jasny/latch_counter.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/jasny/latch_counter.h"
