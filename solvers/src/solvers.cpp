// Anchor translation unit of Tessera::solvers (each solver adds its own via <name>/sources.cmake).
namespace tessera::solvers {
int module_anchor() { return 0; }
}  // namespace tessera::solvers
