// Initial states and topography of the weather cases, as point functions of global coordinates.
// Cell centres at x = (i + 1/2) dx, u faces at x = i dx, v faces at y = j dy.
#pragma once
#include "tessera/weather_solver/config.hpp"

namespace tessera::weather {

double topography_at(const Config& k, int64_t i, int64_t j);  // b at cell centre (i, j)
double surface_at(const Config& k, int64_t i, int64_t j);     // eta = h + b at cell centre
double u_at(const Config& k, int64_t i, int64_t j);           // u on the west face of (i, j)
double v_at(const Config& k, int64_t i, int64_t j);           // v on the south face of (i, j)

}  // namespace tessera::weather
