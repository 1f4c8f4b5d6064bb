#include "secret_locations.hpp"

namespace oms::policies {

const std::vector<std::string>& home_secret_locations() {
    static const std::vector<std::string> locations{
        // The spec's list.
        ".ssh", ".config/solana", ".aws", "Library", ".config/gh", ".docker", ".netrc", ".npmrc",
        // Registry and forge tokens: Cargo's (inside the ~/.cargo read root; also under
        // $CARGO_HOME, see below), yarn's and bun's npm tokens, PyPI's upload token,
        // git's credential store, hub's token.
        ".cargo/credentials.toml", ".cargo/credentials", ".yarnrc.yml", ".yarnrc", ".bunfig.toml", ".pypirc",
        ".git-credentials", ".config/git/credentials", ".config/hub",
        // Cloud and cluster CLIs: kubeconfig tokens, gcloud and Azure logins.
        ".kube", ".config/gcloud", ".azure",
        // Key stores: GnuPG private keys, pass's store, the desktop keyring.
        ".gnupg", ".password-store", ".local/share/keyrings"};
    return locations;
}

const std::vector<std::string>& cargo_secret_files() {
    static const std::vector<std::string> files{"credentials.toml", "credentials"};
    return files;
}

}  // namespace oms::policies
