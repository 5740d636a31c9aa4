// Moved: this header is now <latchwork/repro/repro_txn.h>. This forwarding header keeps programs
// written against the old path compiling; include the new one instead.
#pragma once
#pragma message("<latchwork/experiments/repro_txn.h> moved to <latchwork/repro/repro_txn.h>; include that instead (this forwarding header will be removed)")
#include "latchwork/repro/repro_txn.h"
