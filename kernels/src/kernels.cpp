// Anchor translation unit of Tessera::kernels (the physics kernels add theirs via <name>/sources.cmake).
namespace tessera::kernels {
int module_anchor() { return 0; }
}  // namespace tessera::kernels
