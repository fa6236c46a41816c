// `md case.yaml`: set-up, the time loop, thermo output, trajectories and the run summary.
#pragma once
#include "tessera/core/case.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::md {

int run(Runtime& rt, const Case& c, const RunOptions& opt);

}  // namespace tessera::md
