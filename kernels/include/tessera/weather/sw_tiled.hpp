// The CUDA shallow-water stage (sw_tiled.cpp), dispatched from sw_stage.
//
// Default: the strip kernel. A warp owns 32 adjacent columns and 8 rows of cells (it writes columns 2-30
// of its 32, since a cell reads columns i-2 .. i+1), loads its raw rows of h, u, v, b and s^n into
// registers two rows ahead, and marches up the rows: x-neighbours of U, V, q, B and the cell coefficients come
// from the adjacent lanes by shuffles, y-neighbours from the previous row. No shared memory. Its arithmetic
// is explicitly rounded (no contraction chosen by the optimiser; FMAs only where the expression multiplies
// and then adds: Rf), so each cell's bits do not depend on where its strip starts, and it agrees with the
// host to rounding (1e-12 on O(10) values). Other shapes: TESSERA_SW_TILE. sw_stages12_tiled fuses SSP-RK3's
// first two stages into one such march (periodic f-plane, one rank; TESSERA_SW_FUSED).
//
// TESSERA_SW_TILE=32x16 (the default before) selects the shared-memory tile instead: one thread block
// owns a tile of kTileX x kTileY cells. It loads h, u, v, b of the tile plus a two-cell halo into shared
// memory once, computes the mass fluxes U, V, the corner PV q and the Bernoulli function
// B once per point of the tile plus a one-cell halo (in shared memory), then the tendencies of both
// schemes from those (sw_rates.hpp, the same expressions as the portable path) and the SSP-RK
// combination, reading s^n and writing the output once. Global traffic per stage: s_k (h, u, v) and b
// once (plus the halo's re-reads, which hit L2), s^n once, the output once.
//
// Same formulas as the portable stage; where the portable path fuses a product into a neighbour's sum
// (FMA contraction across the inlined U, q, B), the tile has stored the product in shared memory, so
// results agree to rounding (a few ulp), not bit for bit; each cell's arithmetic does not depend on the
// tile it falls in, so rank decompositions and CellRect splits still give the same bits on the device.
#pragma once
#include "tessera/core/exec.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/sw_point.hpp"
#include "tessera/weather/sw_step.hpp"

namespace tessera::weather {

// Runs the tiled stage when this build has CUDA and ex is on the device; returns false otherwise (the
// caller then takes the portable path). Environment TESSERA_WEATHER_PORTABLE=1 disables it (profiling).
bool sw_stage_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                    SwView out, double a, double c, double dt, const CellRect& r);

// The same over the whole interior, also writing the periodic ghost images of the output on every axis
// that is periodic and held by this rank alone (the values fill_periodic_x then fill_periodic_y would
// copy): the ghost refresh costs no extra pass. Returns false where sw_stage_tiled would.
bool sw_stage_tiled_wrap(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s0, SwConstView sk,
                         SwView out, double a, double c, double dt);

// SSP-RK stages 1 and 2 in one pass (the fused strip kernel, sw_stages12 in sw_step.hpp); false where it
// does not apply.
bool sw_stages12_tiled(const exec::Exec& ex, const Grid& gr, const SwParams& p, SwConstView s, SwView out,
                       StageCoef k1, StageCoef k2, double dt);

}  // namespace tessera::weather
