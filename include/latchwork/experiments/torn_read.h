// Moved: this header is now <latchwork/repro/jasny/torn_read.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/torn_read.h> moved to <latchwork/repro/jasny/torn_read.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/jasny/torn_read.h"
