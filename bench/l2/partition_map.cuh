// The two L2 partitions of an H100/H200-class card, measured (bench_l2_partition, bench_l2_lbm_pattern).
//
// A line of device memory has one home partition, where its atomics are resolved; an access from a
// multiprocessor wired to the other partition crosses the link between them. Both maps come from the
// latency of chains of dependent atomics:
//  - probe_sms(): every multiprocessor times 64 lines spread over a buffer; the multiprocessors whose
//    near/far pattern correlates with the first one's form group 0, the others group 1, and each gets a
//    latency threshold between its own near and far levels;
//  - map_lines(): the home (0 or 1) of every `granule` bytes of a buffer, by whichever multiprocessor takes
//    it, against that multiprocessor's threshold; `passes` passes with different assignments, majority vote.
// The buffer must hold values below 2^31 (zeros will do) while it is probed; the probes leave it unchanged.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define CK(x)                                                                                        \
  do {                                                                                               \
    cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s: %s at %s:%d: %s\n", "bench_l2", #x, __FILE__, __LINE__,               \
                   cudaGetErrorString(e_));                                                          \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

namespace l2map {

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned atom_add0(unsigned* p) {
  unsigned r;
  asm volatile("atom.global.add.u32 %0, [%1], 0;" : "=r"(r) : "l"(p) : "memory");
  return r;
}
__device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
  unsigned r;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(p) : "memory");
  return r;
}

// Cycles for `chain` dependent atomics on the word at p, after one load has brought its line into L2.
// The values are below 2^31, so every address offset below is 0, but the hardware cannot know it.
__device__ inline unsigned probe(unsigned* p, int chain) {
  const unsigned v = ld_cg(p);
  p += v >> 31;
  const long long t0 = clock64();
  unsigned r = 0;
  for (int i = 0; i < chain; ++i) {
    r = atom_add0(p);
    p += r >> 31;
  }
  long long t1;
  asm volatile("{\n\t.reg .u32 t;\n\tadd.u32 t, %1, 0;\n\tmov.u64 %0, %%clock64;\n\t}" : "=l"(t1) : "r"(r) : "memory");
  return static_cast<unsigned>(t1 - t0);
}

// One block per multiprocessor (the shared memory asked for keeps a second block off), one thread probing
// `nlines` lines, the least of `reps` tries each.
__global__ void sm_latency(unsigned* buf, const unsigned long long* word_of_line, int nlines, int chain, int reps,
                           unsigned* lat, int* smid_of_block) {
  extern __shared__ char keep_off[];
  if (threadIdx.x != 0) return;
  keep_off[0] = 0;
  const unsigned s = sm_id();
  smid_of_block[blockIdx.x] = static_cast<int>(s);
  for (int i = 0; i < nlines; ++i) {
    unsigned best = ~0u;
    for (int r = 0; r < reps; ++r) best = min(best, probe(buf + word_of_line[i], chain));
    lat[s * nlines + i] = best;
  }
}

// Lane 0 of every warp takes granules from a counter (offset by `shift`, so that each pass gives a granule
// to another multiprocessor) and writes its home: the prober's group if the latency is under the prober's
// threshold, else the other group (2: the prober's group is unknown).
__global__ void map_homes(unsigned* buf, unsigned long long ngran, unsigned words_per_gran, int chain,
                          const unsigned char* group_of_sm, const unsigned* threshold_of_sm,
                          unsigned long long* counter, unsigned long long shift, unsigned char* home) {
  if ((threadIdx.x & 31) != 0) return;
  const unsigned s = sm_id();
  const unsigned g = group_of_sm[s];
  const unsigned thr = threshold_of_sm[s];
  for (;;) {
    const unsigned long long i = atomicAdd(counter, 1ull);
    if (i >= ngran) return;
    const unsigned long long k = (i + shift) % ngran;
    probe(buf + k * words_per_gran, chain);  // the line into L2 (the first load may go to DRAM)
    const unsigned t = probe(buf + k * words_per_gran, chain);
    home[k] = g > 1 ? 2 : static_cast<unsigned char>(t < thr ? g : 1 - g);
  }
}

constexpr int kMaxSm = 1024;

struct SmGroups {
  std::vector<unsigned char> group = std::vector<unsigned char>(kMaxSm, 2);  // by SM id; 2: not seen
  std::vector<unsigned> threshold = std::vector<unsigned>(kMaxSm, 0);       // cycles per chain
  int sizes[2] = {0, 0};
  int distinct = 0;           // SM ids seen
  double min_abs_corr = 0;    // the weakest |correlation| with the first SM's pattern (1: clean split)
  double near_cycles = 0;     // per atomic, mean over the multiprocessors
  double far_cycles = 0;
  unsigned char* d_group = nullptr;  // device copies (kMaxSm entries)
  unsigned* d_threshold = nullptr;
};

inline SmGroups probe_sms(unsigned* buf, size_t bytes, int chain) {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  const int nsm = prop.multiProcessorCount;
  const int nlines = 64;
  const size_t words = bytes / 4;
  std::vector<unsigned long long> line_word(nlines);
  for (int i = 0; i < nlines; ++i) line_word[i] = (static_cast<unsigned long long>(i) * 2654435761ull % (words / 32)) * 32;
  unsigned long long* d_line_word = nullptr;
  unsigned* d_lat = nullptr;
  int* d_smid = nullptr;
  CK(cudaMalloc(&d_line_word, nlines * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_lat, size_t{kMaxSm} * nlines * sizeof(unsigned)));
  CK(cudaMalloc(&d_smid, nsm * sizeof(int)));
  CK(cudaMemcpy(d_line_word, line_word.data(), nlines * sizeof(unsigned long long), cudaMemcpyHostToDevice));
  const int keep_off = static_cast<int>(prop.sharedMemPerMultiprocessor / 2 + 1024);
  CK(cudaFuncSetAttribute(sm_latency, cudaFuncAttributeMaxDynamicSharedMemorySize, keep_off));
  sm_latency<<<nsm, 32, keep_off>>>(buf, d_line_word, nlines, chain, 3, d_lat, d_smid);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> lat(size_t{kMaxSm} * nlines);
  std::vector<int> smid(nsm);
  CK(cudaMemcpy(lat.data(), d_lat, lat.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(smid.data(), d_smid, nsm * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaFree(d_line_word));
  CK(cudaFree(d_lat));
  CK(cudaFree(d_smid));
  std::sort(smid.begin(), smid.end());
  smid.erase(std::unique(smid.begin(), smid.end()), smid.end());
  SmGroups G;
  G.distinct = static_cast<int>(smid.size());
  auto per_atomic = [&](int s) {
    std::vector<double> v(nlines);
    for (int i = 0; i < nlines; ++i) v[i] = lat[size_t(s) * nlines + i] / double(chain);
    return v;
  };
  auto centred = [&](int s) {
    std::vector<double> v = per_atomic(s);
    const double m = std::accumulate(v.begin(), v.end(), 0.0) / nlines;
    for (auto& x : v) x -= m;
    return v;
  };
  const std::vector<double> ref = centred(smid[0]);
  G.min_abs_corr = 1.0;
  for (int s : smid) {
    const std::vector<double> v = centred(s);
    double xy = 0, xx = 0, yy = 0;
    for (int i = 0; i < nlines; ++i) xy += v[i] * ref[i], xx += v[i] * v[i], yy += ref[i] * ref[i];
    const double corr = xy / std::sqrt(xx * yy + 1e-30);
    G.min_abs_corr = std::min(G.min_abs_corr, std::fabs(corr));
    G.group[s] = corr >= 0 ? 0 : 1;
    ++G.sizes[G.group[s]];
    // the midpoint between this SM's two latency levels (split at its mean)
    const std::vector<double> per = per_atomic(s);
    const double mean = std::accumulate(per.begin(), per.end(), 0.0) / nlines;
    double lo = 0, hi = 0;
    int nlo = 0, nhi = 0;
    for (double x : per) {
      if (x < mean) lo += x, ++nlo;
      else hi += x, ++nhi;
    }
    lo /= std::max(nlo, 1);
    hi /= std::max(nhi, 1);
    G.threshold[s] = static_cast<unsigned>(0.5 * (lo + hi) * chain);
    G.near_cycles += lo / smid.size();
    G.far_cycles += hi / smid.size();
  }
  CK(cudaMalloc(&G.d_group, kMaxSm));
  CK(cudaMalloc(&G.d_threshold, kMaxSm * sizeof(unsigned)));
  CK(cudaMemcpy(G.d_group, G.group.data(), kMaxSm, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(G.d_threshold, G.threshold.data(), kMaxSm * sizeof(unsigned), cudaMemcpyHostToDevice));
  return G;
}

struct LineMap {
  std::vector<unsigned char> home;  // per granule: 0, 1 (2: unknown)
  double agreement = 0;             // share of granules on which every pass agreed
  double ms_per_pass = 0;
};

inline LineMap map_lines(unsigned* buf, size_t bytes, unsigned granule, int chain, const SmGroups& G, int passes = 3) {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  const unsigned long long ngran = bytes / granule;
  unsigned char* d_home = nullptr;
  unsigned long long* d_counter = nullptr;
  CK(cudaMalloc(&d_home, ngran));
  CK(cudaMalloc(&d_counter, sizeof(unsigned long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<unsigned char> votes(ngran, 0), first(ngran), one(ngran);
  LineMap M;
  unsigned long long unanimous = 0;
  std::vector<unsigned char> all_same(ngran, 1);
  for (int pass = 0; pass < passes; ++pass) {
    CK(cudaMemset(d_counter, 0, sizeof(unsigned long long)));
    CK(cudaEventRecord(e0));
    map_homes<<<prop.multiProcessorCount * 4, 256>>>(buf, ngran, granule / 4, chain, G.d_group, G.d_threshold,
                                                     d_counter, pass * (ngran / passes + 12345), d_home);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    M.ms_per_pass += ms / passes;
    CK(cudaMemcpy(one.data(), d_home, ngran, cudaMemcpyDeviceToHost));
    for (unsigned long long k = 0; k < ngran; ++k) {
      if (pass == 0) first[k] = one[k];
      else all_same[k] &= one[k] == first[k];
      votes[k] += one[k] == 1;
    }
  }
  M.home.resize(ngran);
  for (unsigned long long k = 0; k < ngran; ++k) {
    M.home[k] = 2 * votes[k] > passes ? 1 : 0;
    unanimous += all_same[k];
  }
  M.agreement = double(unanimous) / ngran;
  CK(cudaFree(d_home));
  CK(cudaFree(d_counter));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return M;
}

}  // namespace l2map
