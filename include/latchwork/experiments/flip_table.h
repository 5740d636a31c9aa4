// Moved: this header is now <latchwork/repro/jasny/flip_table.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/flip_table.h> moved to <latchwork/repro/jasny/flip_table.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/jasny/flip_table.h"
