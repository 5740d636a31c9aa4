// Moved: this header is now <latchwork/litmus/litmus.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/litmus.h> moved to <latchwork/litmus/litmus.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/litmus/litmus.h"
