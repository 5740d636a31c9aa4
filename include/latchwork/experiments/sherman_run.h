// Moved: this header is now <latchwork/bench/sherman_run.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/sherman_run.h> moved to <latchwork/bench/sherman_run.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/bench/sherman_run.h"
