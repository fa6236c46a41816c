// Sub-box / slice / stride selection arithmetic, and packing a rank's selected cells.
#include <algorithm>
#include <string>

#include "pack.hpp"
#include "tessera/core/error.hpp"

namespace tessera::io {

Selection Selection::slice(int axis, int64_t index) {
  TESSERA_REQUIRE(axis >= 0 && axis < 3, "slice axis must be 0 (x), 1 (y) or 2 (z)");
  Selection s;
  s.lo[axis] = index;
  s.hi = {0, 0, 0};
  // hi == 0 means "to the end"; a slice needs an explicit end on its axis, the others to the end.
  s.hi[axis] = index + 1;
  return s;
}

const char* to_string(Precision p) { return p == Precision::Float32 ? "float32" : "float64"; }

Precision parse_precision(const std::string& s) {
  if (s == "float32" || s == "single" || s == "fp32" || s == "float") return Precision::Float32;
  if (s == "float64" || s == "double" || s == "fp64") return Precision::Float64;
  TESSERA_THROW("unknown output precision '" + s + "': use float32 or float64");
}

ResolvedSelection resolve(const Selection& s, const GridGeometry& g) {
  static const char* axes = "xyz";
  ResolvedSelection r;
  for (int d = 0; d < 3; ++d) {
    const int64_t n = g.global_cells[d];
    const int64_t lo = s.lo[d];
    const int64_t hi = s.hi[d] == 0 ? n : s.hi[d];
    const int64_t st = s.stride[d];
    if (st < 1 || lo < 0 || hi > n || lo >= hi)
      TESSERA_THROW(std::string("output selection on axis ") + axes[d] + " is invalid: lo=" + std::to_string(lo) +
                    " hi=" + std::to_string(hi) + " stride=" + std::to_string(st) + " for a grid of " +
                    std::to_string(n) + " cells; need 0 <= lo < hi <= cells and stride >= 1");
    r.lo[d] = lo;
    r.hi[d] = hi;
    r.stride[d] = st;
    r.out_cells[d] = (hi - lo + st - 1) / st;
    r.out_spacing[d] = g.spacing[d] * static_cast<double>(st);
    r.out_origin[d] = g.origin[d] + g.spacing[d] * static_cast<double>(lo);
  }
  return r;
}

OutputBlock output_block(const ResolvedSelection& s, const LocalBox& box) {
  OutputBlock b;
  for (int d = 0; d < 3; ++d) {
    const int64_t b_lo = std::max(box.offset[d], s.lo[d]);
    const int64_t b_hi = std::min(box.offset[d] + box.cells[d], s.hi[d]);
    // First selected index >= b_lo: lo + m*stride with m = ceil((b_lo - lo)/stride).
    const int64_t m0 = (b_lo - s.lo[d] + s.stride[d] - 1) / s.stride[d];
    const int64_t first = s.lo[d] + m0 * s.stride[d];
    if (box.cells[d] <= 0 || first >= b_hi) return OutputBlock{};  // nothing selected on this rank
    const int64_t m1 = (b_hi - 1 - s.lo[d]) / s.stride[d];        // last selected output index
    b.out_offset[d] = m0;
    b.out_count[d] = m1 - m0 + 1;
    b.first_local[d] = first - box.offset[d];
  }
  return b;
}

namespace detail {
namespace {
template <class Out, class In>
void pack_typed(Out* dst, const In* src, const FieldView& f, const LocalBox& box, const ResolvedSelection& sel,
                const OutputBlock& blk) {
  const int64_t nx = box.cells[0], ny = box.cells[1];
  const int64_t ncells = box.num_cells();
  const int nc = f.ncomp;
  int64_t o = 0;
  for (int64_t k = 0; k < blk.out_count[2]; ++k) {
    const int64_t lk = blk.first_local[2] + k * sel.stride[2];
    for (int64_t j = 0; j < blk.out_count[1]; ++j) {
      const int64_t lj = blk.first_local[1] + j * sel.stride[1];
      for (int64_t i = 0; i < blk.out_count[0]; ++i) {
        const int64_t li = blk.first_local[0] + i * sel.stride[0];
        const int64_t cell = (lk * ny + lj) * nx + li;
        for (int c = 0; c < nc; ++c) {
          const int64_t idx = f.layout == Layout::Interleaved ? cell * nc + c : c * ncells + cell;
          dst[o++] = static_cast<Out>(src[idx]);
        }
      }
    }
  }
}
template <class Out>
void pack_out(Out* dst, const FieldView& f, const LocalBox& box, const ResolvedSelection& sel, const OutputBlock& blk) {
  if (f.f64) pack_typed(dst, f.f64, f, box, sel, blk);
  else pack_typed(dst, f.f32, f, box, sel, blk);
}
}  // namespace

std::vector<char> pack_block(const FieldView& f, const LocalBox& box, const ResolvedSelection& sel,
                             const OutputBlock& blk, Precision out) {
  TESSERA_REQUIRE((f.f64 != nullptr) != (f.f32 != nullptr) || box.num_cells() == 0,
                  "field '" + f.name + "': set exactly one of f64 / f32 (host pointers to this rank's box)");
  TESSERA_REQUIRE(f.ncomp >= 1, "field '" + f.name + "' needs ncomp >= 1");
  const std::size_t n = static_cast<std::size_t>(blk.num_cells()) * static_cast<std::size_t>(f.ncomp);
  std::vector<char> bytes(n * (out == Precision::Float32 ? 4 : 8));
  if (n == 0) return bytes;
  if (out == Precision::Float32) pack_out(reinterpret_cast<float*>(bytes.data()), f, box, sel, blk);
  else pack_out(reinterpret_cast<double*>(bytes.data()), f, box, sel, blk);
  return bytes;
}

}  // namespace detail
}  // namespace tessera::io
