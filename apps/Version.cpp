namespace talus::app {
const char* version() { return "0.1.0"; }
}  // namespace talus::app
