// Moved: this header is now <latchwork/bench/perf.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/perf.h> moved to <latchwork/bench/perf.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/bench/perf.h"
