// The weather run: time loop, CSV diagnostics, field output with spectra, checkpoints and restart.
#pragma once
#include "tessera/core/case.hpp"
#include "tessera/core/cli.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::weather {

// Entry point used by `weather case.yaml` through cli::run_app; returns an exit_code.
int run(Runtime& rt, const Case& c, const RunOptions& opt);

}  // namespace tessera::weather
