// Moved: this header is now <latchwork/check/history.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/checkers/history.h> moved to <latchwork/check/history.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/check/history.h"
