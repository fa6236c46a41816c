// IEEE 754 binary16 storage for populations, identical on host and device.
//
// The device pass uses the hardware conversions (cvt.rn.f16.f32); the host uses the software
// round-to-nearest-even below, which gives the same bits, so fp16 runs on CPU and GPU agree bit for bit
// in what they store. Arithmetic never happens in fp16: values are widened to fp32 on load.
#pragma once
#include <cstdint>
#include <cstring>

#include "tessera/core/config_macros.hpp"
#if TESSERA_CUDA_COMPILER
#include <cuda_fp16.h>
#endif

namespace tessera::lbm {

struct half_t {
  uint16_t bits;
};

TESSERA_HD inline uint32_t float_bits(float f) {
#if TESSERA_DEVICE_PASS
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
TESSERA_HD inline float bits_float(uint32_t u) {
#if TESSERA_DEVICE_PASS
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// float -> binary16, round to nearest, ties to even; overflow to +-inf, NaN stays NaN.
TESSERA_HD inline uint16_t float_to_half_bits(float f) {
#if TESSERA_DEVICE_PASS
  return __half_as_ushort(__float2half_rn(f));
#else
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return uint16_t(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x47800000u) return uint16_t(sign | 0x7c00u);  // >= 2^16: infinity
  if (a < 0x38800000u) {                                   // below 2^-14: half subnormal or zero
    if (a < 0x33000000u) return uint16_t(sign);            // <= 2^-25 rounds to zero
    const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    const int shift = 126 - int(a >> 23);                  // 14..24
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (a - 0x38000000u) >> 13;  // rebias exponent 127 -> 15, keep 10 mantissa bits
  const uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct
  return uint16_t(sign | h);
#endif
}

TESSERA_HD inline float half_bits_to_float(uint16_t h) {
#if TESSERA_DEVICE_PASS
  return __half2float(__ushort_as_half(h));
#else
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = float(m) * 5.9604644775390625e-8f;  // m * 2^-24
    return sign ? -v : v;
  }
  if (e == 31) return bits_float(sign | 0x7f800000u | (m << 13));
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
#endif
}

}  // namespace tessera::lbm
