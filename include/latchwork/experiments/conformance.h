// Moved: this header is now <latchwork/conformance/conformance.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/conformance.h> moved to <latchwork/conformance/conformance.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/conformance/conformance.h"
