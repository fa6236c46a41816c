// Anchor translation unit of Tessera::io.
namespace tessera::io {
int module_anchor() { return 0; }
}  // namespace tessera::io
