#include "oms/core/variable_relevance.hpp"

#include <algorithm>
#include <utility>

namespace oms::core {

namespace {

bool starts_with(const std::string& name, const char* prefix) { return name.rfind(prefix, 0) == 0; }

bool any_prefix(const std::string& name, std::initializer_list<const char*> prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const char* prefix) { return starts_with(name, prefix); });
}

bool any_exact(const std::string& name, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* exact) { return name == exact; });
}

// Language and package-manager families: their variables share a prefix.
bool tool_family(const std::string& name) {
    return any_prefix(name, {"PYTHON", "PIP_", "PIPX_", "VIRTUAL_ENV", "CONDA_", "POETRY_", "UV_", "PYTEST_",
                             "NODE_", "NPM_", "npm_config_", "YARN_", "PNPM_", "BUN_", "DENO_", "TS_NODE_",
                             "CARGO", "RUST", "GO1", "GEM_", "BUNDLE_", "RUBY", "PERL", "JAVA", "JDK_", "MAVEN_",
                             "GRADLE_", "CMAKE_", "PKG_CONFIG", "MAKE", "CCACHE_", "CI_", "SOLANA_", "ANCHOR_",
                             "DOTNET_", "NUGET_"});
}

// Where interpreters find modules, which environment or compiler a build
// uses, and the switch test runners read: a missing one changes what runs.
bool code_name(const std::string& name) {
    return any_exact(name, {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "NODE_PATH", "NODE_OPTIONS",
                            "NODE_ENV", "GOPATH", "GOROOT", "GOFLAGS", "CLASSPATH", "JAVA_HOME", "PERL5LIB", "RUBYLIB",
                            "GEM_HOME", "GEM_PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
                            "CPLUS_INCLUDE_PATH", "PKG_CONFIG_PATH", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS",
                            "LDFLAGS", "RUSTFLAGS", "CARGO_TARGET_DIR", "CI"});
}

// Other single names compilers, linkers and test runners read.
bool tool_name(const std::string& name) {
    return any_exact(name, {"CPP", "AR", "LD", "LDLIBS", "GOBIN", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOPRIVATE",
                            "GOOS", "GOARCH", "CGO_ENABLED", "DEBUG", "NO_COLOR", "FORCE_COLOR", "TZ"});
}

bool session_name(const std::string& name) {
    if (any_prefix(name, {"XDG_", "DBUS_", "SSH_", "LESS", "TERM_", "GNOME_", "KDE_", "QT_", "GTK_"})) return true;
    return any_exact(name, {"DISPLAY", "WAYLAND_DISPLAY", "LS_COLORS", "MAIL", "HOSTNAME", "EDITOR", "VISUAL",
                            "PAGER", "COLORTERM", "WINDOWID", "GPG_TTY", "MOTD_SHOWN", "HISTSIZE", "HISTFILE",
                            "HISTCONTROL", "PS1", "PROMPT_COMMAND", "DEBIAN_FRONTEND", "MANPATH", "INFOPATH"});
}

}  // namespace

VariableRelevance relevance_of(const std::string& name) {
    if (code_name(name)) return VariableRelevance::code;
    if (tool_family(name) || tool_name(name)) return VariableRelevance::tool;
    if (session_name(name)) return VariableRelevance::session;
    return VariableRelevance::other;
}

void order_by_relevance(std::vector<std::string>& names) {
    // Each name's relevance once: a user's environment has hundreds of names,
    // and the sort would otherwise weigh each of them against every list
    // above at every comparison.
    std::vector<std::pair<VariableRelevance, std::string>> ranked;
    ranked.reserve(names.size());
    for (auto& name : names) ranked.emplace_back(relevance_of(name), std::move(name));
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < names.size(); ++i) names[i] = std::move(ranked[i].second);
}

}  // namespace oms::core
