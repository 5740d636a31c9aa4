// Moved: this header is now <latchwork/repro/repro_lock.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/repro_lock.h> moved to <latchwork/repro/repro_lock.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/repro_lock.h"
