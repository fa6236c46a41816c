// Schema of the md case file and its translation into a CaseConfig.
#include "tessera/md/case_config.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "tessera/core/device.hpp"
#include "tessera/domain/parallel_options.hpp"
#include "tessera/md/lattice.hpp"

namespace tessera::md {

namespace {
Schema build_schema() {
  Schema s("md", "Classical molecular dynamics (Lennard-Jones, WCA, Morse, tabulated; harmonic and FENE bonds)");
  s.add_enum("units", {"lj", "real"}).default_value("lj")
      .describe("lj: reduced units (sigma, epsilon, m, tau); real: Angstrom, fs, kcal/mol, g/mol, K");
  s.section("system", "Initial configuration");
  s.add_enum("system.source", {"lattice", "polymer", "xyz", "lammps_data"}).default_value("lattice")
      .describe("lattice: system.lattice at system.density; polymer: Kremer-Grest melt of system.chain_length "
                "beads per chain; xyz / lammps_data: read system.file");
  s.add_enum("system.lattice", {"sc", "bcc", "fcc"}).default_value("fcc").describe("Lattice type");
  s.add_int_array("system.cells", 3).default_array({8, 8, 8}).min(1).describe("Unit cells per axis");
  s.add_float("system.density").default_value(0.8442).greater_than(0).unit("1/length^3").describe("Number density");
  s.add_int("system.chain_length").default_value(50).min(2).describe("Polymer: beads per chain");
  s.add_string("system.file").default_value("").describe("xyz / lammps_data: the file to read");
  s.add_float_array("system.mass", 0).default_array({1.0}).greater_than(0).unit("mass")
      .describe("Mass per atom type (the number of entries sets the number of types)");
  s.section("velocity", "Initial velocities (ignored when the input file has them)");
  s.add_float("velocity.temperature").default_value(1.0).min(0).unit("temperature")
      .describe("Gaussian velocities at this temperature, zero total momentum");
  s.add_int("velocity.seed").default_value(87287).min(0).describe("Seed (Philox, keyed by atom id)");
  s.section("pair", "Pair interactions");
  s.add_enum("pair.style", {"lj", "wca", "morse", "table"}).default_value("lj")
      .describe("lj: Lennard-Jones; wca: LJ cut at 2^(1/6) sigma and shifted; morse; table: pair.table_file");
  s.add_enum("pair.shift", {"none", "energy", "force"}).default_value("energy")
      .describe("none: plain cut; energy: U(rc) = 0; force: force-shifted (U and F vanish at rc)");
  s.add_float("pair.cutoff").default_value(2.5).greater_than(0).unit("length").describe("Global cut-off rc");
  s.add_enum("pair.mixing", {"lorentz_berthelot", "geometric"}).default_value("lorentz_berthelot")
      .describe("Mixing rule for unlike pairs");
  s.add_float_array("pair.epsilon", 0).default_array({1.0}).min(0).unit("energy").describe("LJ epsilon per type");
  s.add_float_array("pair.sigma", 0).default_array({1.0}).greater_than(0).unit("length").describe("LJ sigma per type");
  Schema& pc = s.add_list("pair.coeffs").describe("Explicit coefficients for a pair of types (override mixing)").entries();
  pc.add_int_array("types", 2).required().min(0).describe("[a, b], 0-based");
  pc.add_float("epsilon").required().min(0).unit("energy").describe("epsilon_ab");
  pc.add_float("sigma").required().greater_than(0).unit("length").describe("sigma_ab");
  pc.add_float("cutoff").default_value(0.0).min(0).unit("length").describe("rc_ab; 0 = pair.cutoff");
  s.add_bool("pair.tail").default_value(false).describe("Analytic tail corrections to energy and pressure (LJ)");
  s.add_float("pair.morse_d0").default_value(1.0).greater_than(0).unit("energy").describe("Morse well depth D0");
  s.add_float("pair.morse_alpha").default_value(1.0).greater_than(0).unit("1/length").describe("Morse alpha");
  s.add_float("pair.morse_r0").default_value(1.0).greater_than(0).unit("length").describe("Morse r0");
  s.add_string("pair.table_file").default_value("")
      .describe("Table: lines 'r U F' on a uniform r grid (F = -dU/dr); '#' comments; used for every pair");
  s.section("bonds", "Bonds (polymer and lammps_data sources)");
  s.add_enum("bonds.style", {"none", "harmonic", "fene"}).default_value("none")
      .describe("harmonic: k/2 (r - r0)^2; fene: -K R0^2/2 ln(1 - (r/R0)^2)");
  s.add_float("bonds.k").default_value(30.0).greater_than(0).describe("Harmonic k or FENE K");
  s.add_float("bonds.r0").default_value(1.5).greater_than(0).unit("length").describe("Harmonic r0 or FENE R0");
  s.section("walls", "Walls: an axis with walls is not periodic (LJ 9-3 wall at both faces)");
  for (const char* ax : {"walls.x", "walls.y", "walls.z"})
    s.add_enum(ax, {"none", "lj93"}).default_value("none")
        .describe("none: periodic axis; lj93: U(h) = eps [(2/15)(sigma/h)^9 - (sigma/h)^3] - U(rc) at both faces");
  s.add_float("walls.epsilon").default_value(1.0).greater_than(0).unit("energy").describe("Wall strength eps");
  s.add_float("walls.sigma").default_value(1.0).greater_than(0).unit("length").describe("Wall sigma");
  s.add_float("walls.cutoff").default_value(0.0).min(0).unit("length")
      .describe("Wall cut-off; 0 = (2/5)^(1/6) sigma, the minimum: a purely repulsive wall");
  s.add_float("walls.gap").default_value(1.0).min(0).unit("length")
      .describe("On a walled axis the box spans the initial particles plus this gap at each face");
  s.section("neighbor", "Neighbour list");
  s.add_float("neighbor.skin").default_value(0.3).min(0).unit("length").describe("Verlet skin");
  s.add_int("neighbor.sort_every").default_value(20).min(0)
      .describe("Re-sort particles in cell order every N list builds (0 = never)");
  s.add_int("neighbor.capacity").default_value(64).min(1).describe("Initial neighbours per atom (grows when needed)");
  s.add_int("neighbor.cell_reach").default_value(0).min(0).max(2)
      .describe("Cells >= (rc + skin) / cell_reach wide: 1 = 27-cell stencil, 2 = 125 half-width cells (culled on the "
                "GPU), 0 = 2 on one GPU where a half-width cell holds 2 or more particles, else 1");
  s.section("run", "Integration");
  s.add_int("run.steps").default_value(1000).min(0).describe("Time steps");
  s.add_float("run.dt").default_value(0.005).greater_than(0).unit("time").describe("Time step");
  s.add_enum("run.integrator", {"nve", "langevin", "nose_hoover", "npt"}).default_value("nve")
      .describe("nve: velocity Verlet; langevin: BAOAB; nose_hoover: NHC (MTK splitting); npt: isotropic MTK "
                "barostat + NHC (Tuckerman et al. 2006)");
  s.add_enum("run.precision", {"double", "mixed"}).default_value("double")
      .describe("mixed: forces in float, positions and sums in double");
  s.add_bool("run.cuda_graph").default_value(true)
      .describe("Where it applies (GPU, one rank, nve/langevin): the step as one CUDA graph, list rebuild decided "
                "and made on the device (particles sorted at every build, float fill); elsewhere, and with "
                "false, the host-driven step (same physics)");
  s.add_enum("run.pair_kernel", {"auto", "portable", "tuned"}).default_value("auto")
      .describe("Pair-force kernel: tuned (lanes per atom, GPU only), portable (the reference), auto = tuned on "
                "the GPU, portable on the host");
  s.add_int("run.threads_per_atom").default_value(0).min(0).max(8)
      .describe("Lanes per atom of the tuned kernel: 1, 2, 4 or 8; 0 = by atom count");
  s.section("thermostat", "NVT settings");
  s.add_float("thermostat.temperature").default_value(1.0).greater_than(0).unit("temperature").describe("Target temperature");
  s.add_float("thermostat.gamma").default_value(1.0).greater_than(0).unit("1/time").describe("Langevin friction");
  s.add_float("thermostat.tau").default_value(0.5).greater_than(0).unit("time").describe("Nose-Hoover period");
  s.add_int("thermostat.chain").default_value(3).min(1).max(10).describe("Nose-Hoover chain length");
  s.add_int("thermostat.seed").default_value(4928459).min(0).describe("Langevin random seed");
  s.section("barostat", "NPT settings (run.integrator: npt; the thermostat section sets T and the particle chain)");
  s.add_float("barostat.pressure").default_value(1.0).unit("pressure").describe("Target pressure P_ext");
  s.add_float("barostat.tau").default_value(2.5).greater_than(0).unit("time")
      .describe("Barostat period tau_P: W = (N_f + 3) kT tau_P^2 (LAMMPS suggests ~1000 steps)");
  s.add_int("barostat.chain").default_value(3).min(1).max(10).describe("Chain length of the barostat's thermostat");
  s.section("output", "Output");
  s.add_int("output.thermo_every").default_value(100).min(1).describe("Steps between thermo lines (terminal and CSV)");
  s.add_bool("output.thermo_csv").default_value(true).describe("Write thermo.csv in the output directory");
  s.add_int("output.trajectory_every").default_value(0).min(0)
      .describe("Steps between H5MD frames (trajectory.h5 + .xdmf for ParaView); 0 = none");
  s.add_int("output.msd_every").default_value(0).min(0)
      .describe("Steps between rows of msd.csv (mean-square displacement of unwrapped positions since step 0); 0 = none");
  s.add_int("output.checkpoint_every").default_value(0).min(0)
      .describe("Checkpoint every N steps and at the end (0: only when stopped by a signal or --max-walltime)");
  s.add_int("output.checkpoint_keep").default_value(3).min(0).describe("Checkpoints kept (older ones deleted); 0 = all");
  // Ghost positions between ranks travel like the grid solvers' halos (docs/md.md, "Running on several ranks").
  domain::add_parallel_keys(s, /*memory=*/false, /*overlap=*/false);

  s.add_check("ntypes", {"system.mass", "pair.epsilon", "pair.sigma"}, [](const Case& c) -> std::string {
    const auto m = c.get<std::vector<double>>("system.mass");
    if (c.get<std::vector<double>>("pair.epsilon").size() != m.size() ||
        c.get<std::vector<double>>("pair.sigma").size() != m.size())
      return fmt::format("system.mass has {} types; pair.epsilon and pair.sigma need one entry per type", m.size());
    return "";
  });
  s.add_check("file", {"system.file", "system.source"}, [](const Case& c) -> std::string {
    const auto src = c.get<std::string>("system.source");
    if ((src == "xyz" || src == "lammps_data") && c.get<std::string>("system.file").empty())
      return "system.source: " + src + " needs system.file";
    return "";
  });
  s.add_check("table", {"pair.table_file", "pair.style"}, [](const Case& c) -> std::string {
    if (c.get<std::string>("pair.style") == "table" && c.get<std::string>("pair.table_file").empty())
      return "pair.style: table needs pair.table_file";
    return "";
  });
  s.add_check("lanes", {"run.threads_per_atom"}, [](const Case& c) -> std::string {
    const int t = c.get<int>("run.threads_per_atom");
    if (t == 0 || t == 1 || t == 2 || t == 4 || t == 8) return "";
    return fmt::format("run.threads_per_atom = {}: expected 0 (chosen by atom count), 1, 2, 4 or 8", t);
  });
  add_batch_keys(s);  // batch.max_walltime
  return s;
}

double est_neighbors(const CaseConfig& k) {
  const double r = k.cutoff + k.sim.skin;
  return 4.0 / 3.0 * std::numbers::pi * r * r * r * k.density;
}
}  // namespace

const Schema& schema() {
  static const Schema s = build_schema();
  return s;
}

CaseConfig read_config(const Case& c) {
  CaseConfig k;
  k.sim.units = parse_units(c.get<std::string>("units"));
  k.source = c.get<std::string>("system.source");
  k.lattice = c.get<std::string>("system.lattice");
  k.cells = c.get<std::array<int, 3>>("system.cells");
  k.density = c.get<double>("system.density");
  k.chain_length = c.get<int>("system.chain_length");
  k.file = c.get<std::string>("system.file");
  k.mass = c.get<std::vector<double>>("system.mass");
  k.init_temperature = c.get<double>("velocity.temperature");
  k.velocity_seed = uint64_t(c.get<int64_t>("velocity.seed"));
  k.pair_style = c.get<std::string>("pair.style");
  k.shift = c.get<std::string>("pair.shift");
  k.cutoff = c.get<double>("pair.cutoff");
  k.mixing = c.get<std::string>("pair.mixing");
  k.epsilon = c.get<std::vector<double>>("pair.epsilon");
  k.sigma = c.get<std::vector<double>>("pair.sigma");
  for (const Case& e : c.list("pair.coeffs")) {
    const auto t = e.get<std::array<int, 2>>("types");
    if (t[0] >= int(k.mass.size()) || t[1] >= int(k.mass.size()))
      e.fail("types", fmt::format("type out of range: there are {} types (0-based)", k.mass.size()));
    k.coeffs.push_back(PairCoeff{t[0], t[1], e.get<double>("epsilon"), e.get<double>("sigma"), e.get<double>("cutoff")});
  }
  k.sim.tail = c.get<bool>("pair.tail");
  k.morse_d0 = c.get<double>("pair.morse_d0");
  k.morse_alpha = c.get<double>("pair.morse_alpha");
  k.morse_r0 = c.get<double>("pair.morse_r0");
  k.table_file = c.get<std::string>("pair.table_file");
  k.bond_style = c.get<std::string>("bonds.style");
  k.bond_k = c.get<double>("bonds.k");
  k.bond_r0 = c.get<double>("bonds.r0");
  {
    bool axes[3];
    const char* keys[3] = {"walls.x", "walls.y", "walls.z"};
    for (int a = 0; a < 3; ++a) axes[a] = c.get<std::string>(keys[a]) == "lj93";
    k.sim.walls = WallParam::make(axes, c.get<double>("walls.epsilon"), c.get<double>("walls.sigma"),
                                  c.get<double>("walls.cutoff"));
    k.wall_gap = c.get<double>("walls.gap");
  }
  k.transport = domain::parallel_from_case(c).transport;
  k.sim.skin = c.get<double>("neighbor.skin");
  k.sim.sort_every = c.get<int>("neighbor.sort_every");
  k.sim.neighbor_capacity = c.get<int>("neighbor.capacity");
  k.steps = c.get<int64_t>("run.steps");
  k.sim.dt = c.get<double>("run.dt");
  k.sim.integrator = parse_integrator(c.get<std::string>("run.integrator"));
  k.sim.precision = parse_precision(c.get<std::string>("run.precision"));
  k.sim.cuda_graph = c.get<bool>("run.cuda_graph");
  const std::string kernel = c.get<std::string>("run.pair_kernel");
  k.sim.pair_kernel = kernel == "tuned" ? PairKernel::tuned : kernel == "portable" ? PairKernel::portable : PairKernel::automatic;
  k.cuda_graph_given = c.given("run.cuda_graph");
  k.sim.threads_per_atom = c.get<int>("run.threads_per_atom");
  k.sim.cell_reach = c.get<int>("neighbor.cell_reach");
  k.sim.temperature = c.get<double>("thermostat.temperature");
  k.sim.gamma = c.get<double>("thermostat.gamma");
  k.sim.tau = c.get<double>("thermostat.tau");
  k.sim.chain = c.get<int>("thermostat.chain");
  k.sim.seed = uint64_t(c.get<int64_t>("thermostat.seed"));
  k.sim.pressure = c.get<double>("barostat.pressure");
  k.sim.tau_p = c.get<double>("barostat.tau");
  k.sim.chain_p = c.get<int>("barostat.chain");
  k.thermo_every = c.get<int64_t>("output.thermo_every");
  k.thermo_csv = c.get<bool>("output.thermo_csv");
  k.trajectory_every = c.get<int64_t>("output.trajectory_every");
  k.msd_every = c.get<int64_t>("output.msd_every");
  k.sim.msd = k.msd_every > 0;
  k.checkpoint_every = c.get<int64_t>("output.checkpoint_every");
  k.checkpoint_keep = c.get<int>("output.checkpoint_keep");

  if (k.pair_style == "wca") k.cutoff = std::pow(2.0, 1.0 / 6.0) * *std::max_element(k.sigma.begin(), k.sigma.end());
  return k;
}

MemoryEstimate memory_estimate(const Case& c, int nranks) {
  const CaseConfig k = read_config(c);
  double natoms = 0;
  if (k.source == "lattice" || k.source == "polymer")
    natoms = double(k.cells[0]) * k.cells[1] * k.cells[2] * (k.source == "lattice" ? basis_size(parse_lattice(k.lattice)) : 1);
  MemoryEstimate m;
  // Per atom: 11 doubles (x, v, f, pe, vir), 4 ints (type, images), an int64 id, 3 doubles of list
  // reference positions, 4 ints of cell keys/order/counts, 8 B of radix-sort scratch, the in-place
  // neighbours at 25% head-room (4 B each); with run.cuda_graph the in-place reordering's scratch (9
  // doubles, 4 ints, an id: 96 B) and float positions for the fill (16 B), where the graph step applies
  // (one rank, nve or langevin); in mixed precision the tuned pair kernel's fixed-point positions (16 B,
  // counted unless the portable kernel is asked for).
  const double nb = est_neighbors(k) * 1.25;
  const bool graph = k.sim.cuda_graph && nranks <= 1 &&
                     (k.sim.integrator == Integrator::nve || k.sim.integrator == Integrator::langevin);
  const bool fixed = k.sim.precision == Precision::mixed && k.sim.pair_kernel != PairKernel::portable;
  const double per_atom = 11 * 8 + 4 * 4 + 8 + 3 * 8 + 4 * 4 + 8 + (graph ? 112 : 0) + (fixed ? 16 : 0) + 4 * nb;
  const double per_rank = natoms * per_atom / std::max(nranks, 1);
  m.bytes_per_rank = std::size_t(per_rank);
  m.notes.push_back(fmt::format("{:.0f} atoms, ~{:.0f} neighbours each ({:.0f} B per atom incl. the list)", natoms, nb, per_atom));
  if (device::gpu_available()) {
    const auto [free_b, total_b] = device::mem_info();
    (void)total_b;
    m.notes.push_back(fmt::format("largest system of this kind that fits the free memory of this GPU ({}): ~{:.3g} atoms",
                                  cli::format_bytes(free_b), 0.9 * double(free_b) / per_atom));
  } else {
    m.notes.push_back(fmt::format("on a 141 GB H200 this kind of system fits up to ~{:.3g} atoms per GPU",
                                  0.9 * 141e9 / per_atom));
  }
  return m;
}

}  // namespace tessera::md
