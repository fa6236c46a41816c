// Anchor translation unit of Tessera::domain.
namespace tessera::domain {
int module_anchor() { return 0; }
}  // namespace tessera::domain
