// Moved: this header is now <latchwork/check/builtin.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/check.h> moved to <latchwork/check/builtin.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/check/builtin.h"
