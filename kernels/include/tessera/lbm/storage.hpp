// How populations are stored: fp64, fp32 or fp16, always shifted by the lattice weight.
//
// A slot holds  fbar_q = f_q - w_q  (the deviation from the rest equilibrium at rho = 1). Subtracting the
// O(1) constant before rounding keeps the significant digits for the O(Ma) deviations that carry the
// flow (Skordos 1993; Lehmann et al., Phys. Rev. E 106, 015308 (2022) for the fp16 case). The collision
// works on the shifted values directly (see collision.hpp), so the shift costs nothing.
// Arithmetic is fp64 for fp64 storage and fp32 otherwise (Storage<S>::Real).
#pragma once
#include "tessera/lbm/half.hpp"

namespace tessera::lbm {

enum class Precision { FP64, FP32, FP16 };
const char* to_string(Precision p);
Precision parse_precision(const char* s);  // "fp64"|"double", "fp32"|"float", "fp16"|"half"
inline constexpr int precision_bytes(Precision p) { return p == Precision::FP64 ? 8 : (p == Precision::FP32 ? 4 : 2); }

template <class S>
struct Storage;

template <>
struct Storage<double> {
  using Real = double;
  static constexpr Precision precision = Precision::FP64;
  TESSERA_HD static double load(double s) { return s; }
  TESSERA_HD static double store(double v) { return v; }
};
template <>
struct Storage<float> {
  using Real = float;
  static constexpr Precision precision = Precision::FP32;
  TESSERA_HD static float load(float s) { return s; }
  TESSERA_HD static float store(float v) { return v; }
};
template <>
struct Storage<half_t> {
  using Real = float;
  static constexpr Precision precision = Precision::FP16;
  TESSERA_HD static float load(half_t s) { return half_bits_to_float(s.bits); }
  TESSERA_HD static half_t store(float v) { return half_t{float_to_half_bits(v)}; }
};

}  // namespace tessera::lbm
