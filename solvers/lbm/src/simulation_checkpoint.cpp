// Checkpoint and restart of the LBM state through io/checkpoint.hpp.
//
// What is saved: for every owned cell its Q slots as raw storage words (fp64/fp32/fp16 bytes, shifted by
// w_q as stored), interleaved per cell -> field "populations" (uint8, Q * bytes per cell) in global
// layout; the flags of the owned cells (field "flags"); the AA parity, lattice Q and bytes per value
// (global "lbm_format"). Raw words make the restart bit-exact for every precision (a round trip through
// double would not be for the shifted fp16 values).
//
// Why the owned cells suffice (AA pattern, see aa_halo.hpp): after an odd step (parity 0) the reverse
// exchange has moved every population into its owner, and the next even step reads only its own cell;
// after an even step (parity 1) the ghosts hold copies of the neighbours' boundary slots, which the
// forward exchange recomputes from the owned cells on restart. Wall and solid slots are never read.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "tessera/core/error.hpp"
#include "tessera/lbm/solver/simulation.hpp"

namespace tessera::lbm {

namespace {
// Host copy of the raw population bytes of every padded cell ([q][cell] words).
std::vector<unsigned char> raw_pops(const LatticeState& s) {
  const std::size_t B = std::size_t(precision_bytes(s.precision()));
  std::vector<unsigned char> h(std::size_t(s.q()) * std::size_t(s.grid().cells()) * B);
  copy_n(h.data(), MemKind::Host, static_cast<const unsigned char*>(s.pops()), s.memkind(), h.size());
  return h;
}
}  // namespace

std::string Simulation::write_checkpoint(const std::string& dir, io::CheckpointMeta meta,
                                         const io::CheckpointOptions& opt) {
  exec::fence(ex_);
  const GridLayout& g = state_->grid();
  const int Q = state_->q();
  const int64_t B = precision_bytes(state_->precision()), n = g.cells(), m = g.interior();
  const std::vector<unsigned char> all = raw_pops(*state_);
  const std::vector<uint8_t> fl = read_flags(*state_);
  std::vector<uint8_t> pops(static_cast<std::size_t>(m * Q * B)), flags(static_cast<std::size_t>(m));
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k), l = i + g.nx * (j + g.ny * k);
        flags[std::size_t(l)] = geometry_flag(fl[std::size_t(c)]);  // without the derived bits
        for (int q = 0; q < Q; ++q)
          std::memcpy(&pops[std::size_t((l * Q + q) * B)], &all[std::size_t((q * n + c) * B)], std::size_t(B));
      }
  const io::Index3 global{spec_.global[0], spec_.global[1], spec_.global[2]};
  const io::LocalBox box = local_box();
  const std::array<int64_t, 4> format{state_->parity, Q, B, state_->step};
  meta.step = state_->step;
  io::CheckpointData d;
  d.meta = std::move(meta);
  d.add_field("populations", global, box, pops.data(), int(Q * B));
  d.add_field("flags", global, box, flags.data());
  d.add_global("lbm_format", format.data(), 4);
  return io::write_checkpoint(part_.comm, dir, d, opt);
}

void Simulation::restore(const io::CheckpointReader& r) {
  const GridLayout& g = state_->grid();
  const int Q = state_->q();
  const int64_t B = precision_bytes(state_->precision()), n = g.cells(), m = g.interior();
  const auto format = r.read_global<int64_t>("lbm_format");
  TESSERA_REQUIRE(format.size() == 4, r.path() + ": dataset /global/lbm_format must hold 4 values");
  if (format[1] != Q || format[2] != B)
    TESSERA_THROW(fmt::format("{}: the checkpoint holds {} populations of {} bytes per cell, this run uses {} of {} "
                              "(domain.lattice or numerics.precision changed): restart with the original case",
                              r.path(), format[1], format[2], Q, B));
  const io::LocalBox box = local_box();
  std::vector<uint8_t> pops(static_cast<std::size_t>(m * Q * B)), flags(static_cast<std::size_t>(m));
  r.read_field("populations", box, pops.data());
  r.read_field("flags", box, flags.data());
  const std::vector<uint8_t> mine = read_flags(*state_);
  std::vector<unsigned char> all = raw_pops(*state_);
  int64_t bad = 0;
  for (int64_t k = 0; k < g.nz; ++k)
    for (int64_t j = 0; j < g.ny; ++j)
      for (int64_t i = 0; i < g.nx; ++i) {
        const int64_t c = g.cell(i, j, k), l = i + g.nx * (j + g.ny * k);
        if (geometry_flag(flags[std::size_t(l)]) != geometry_flag(mine[std::size_t(c)])) ++bad;
        for (int q = 0; q < Q; ++q)
          std::memcpy(&all[std::size_t((q * n + c) * B)], &pops[std::size_t((l * Q + q) * B)], std::size_t(B));
      }
  int64_t bad_all = 0;
  MPI_Allreduce(&bad, &bad_all, 1, MPI_INT64_T, MPI_SUM, part_.comm);
  if (bad_all > 0)
    TESSERA_THROW(fmt::format("{}: {} cell flags (walls, solids) differ from this case's geometry: restart with the "
                              "case that wrote the checkpoint",
                              r.path(), bad_all));
  copy_n(static_cast<unsigned char*>(state_->pops()), state_->memkind(), all.data(), MemKind::Host, all.size());
  state_->parity = int(format[0]);
  state_->step = r.meta().step;
  // After an even step the ghosts must hold the neighbours' boundary slots (forward exchange).
  if (state_->parity == 1) halo_->exchange(ex_, *state_);
  exec::fence(ex_);
}

}  // namespace tessera::lbm
