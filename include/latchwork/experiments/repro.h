// Moved: this header is now <latchwork/repro/repro.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/repro.h> moved to <latchwork/repro/repro.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/repro.h"
