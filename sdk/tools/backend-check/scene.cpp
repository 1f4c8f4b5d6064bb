#include "scene.hpp"

#include <oms/abi_lowering.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace oms::backend_check {

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "";
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool path_exists(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0;
}

void make_folder(const std::string& path) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
}

bool remove_tree(const std::string& path) {
    struct stat info;
    if (lstat(path.c_str(), &info) != 0) return errno == ENOENT;
    if (S_ISDIR(info.st_mode)) {
        chmod(path.c_str(), 0700);  // a command may have left a folder without write rights
        if (DIR* dir = opendir(path.c_str())) {
            while (dirent* entry = readdir(dir)) {
                std::string name = entry->d_name;
                if (name != "." && name != "..") remove_tree(path + "/" + name);
            }
            closedir(dir);
        }
        return rmdir(path.c_str()) == 0;
    }
    return unlink(path.c_str()) == 0;
}

void copy_executable(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + from);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
    out.close();
    if (!out || chmod(to.c_str(), 0755) != 0) throw std::runtime_error("cannot write " + to);
}

// "uid:gid" with both numbers, else false.
static bool parse_owner(const std::string& text, unsigned& uid, unsigned& gid) {
    char* end = nullptr;
    unsigned long u = std::strtoul(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != ':') return false;
    const char* rest = end + 1;
    unsigned long g = std::strtoul(rest, &end, 10);
    if (end == rest || *end != '\0') return false;
    uid = static_cast<unsigned>(u);
    gid = static_cast<unsigned>(g);
    return true;
}

void Scene::give_to_owner(const std::string& path) const {
    if (!give_away_) return;
    struct stat info;
    if (lstat(path.c_str(), &info) != 0) return;
    if (lchown(path.c_str(), owner_uid_, owner_gid_) != 0) throw std::runtime_error("cannot give " + path + " to the scene owner");
    if (!S_ISDIR(info.st_mode)) return;
    if (DIR* dir = opendir(path.c_str())) {
        while (dirent* entry = readdir(dir)) {
            std::string name = entry->d_name;
            if (name != "." && name != "..") give_to_owner(path + "/" + name);
        }
        closedir(dir);
    }
}

Scene::Scene(const std::string& helper_source, const std::string& owner) {
    if (!owner.empty()) {
        if (!parse_owner(owner, owner_uid_, owner_gid_))
            throw std::runtime_error("--scene-owner '" + owner + "' is not a numeric uid:gid");
        give_away_ = geteuid() == 0;
    }
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/oms-backend-check-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data())) throw std::runtime_error("cannot create a temporary folder in " + pattern);
    char* canonical = realpath(buffer.data(), nullptr);  // worktree and home must be canonical
    root = canonical;
    std::free(canonical);
    // The kit's commands name its paths inside double quotes.
    if (root.find_first_of("\"$`\\\n") != std::string::npos) {
        rmdir(root.c_str());
        throw std::runtime_error("the temporary folder " + root + " holds a character the kit's shell commands cannot "
                                 "carry (\" $ ` \\ or a line break): set TMPDIR to a plain path");
    }
    chmod(root.c_str(), 0755);
    home = root + "/home";
    worktree = home + "/task";
    outside = root + "/outside";
    for (auto& folder : {home, home + "/.ssh", worktree, worktree + "/.git", outside}) make_folder(folder);
    home_secret = home + "/.ssh/id_oms_check";
    write_text(home_secret, "SECRET-IN-HOME-SSH\n");
    write_text(home + "/notes.txt", "SECRET-IN-HOME\n");
    keypair = worktree + "/wallet-keypair.json";
    write_text(keypair, "SECRET-KEYPAIR\n");
    worktree_file = worktree + "/visible.txt";
    write_text(worktree_file, "VISIBLE-IN-WORKTREE\n");
    git_config = worktree + "/.git/config";
    write_text(git_config, "[core]\n");
    pinned = worktree + "/verify.sh";
    write_text(pinned, "#!/bin/sh\nexit 0\n");
    pinned_files = {pinned};
    write_text(outside + "/untouched.txt", "ORIGINAL\n");
    plant_table_files();
    helper = worktree + "/.oms-check-helper";
    copy_executable(helper_source, helper);
    give_to_owner(worktree);
    give_to_owner(table.write_root_in_denied_tree);
    agent_socket = root + "/agent.sock";
    parent_env = {"PATH=/usr/bin:/bin", "HOME=" + home, "OMS_CHECK_PARENT_SECRET=parent-only",
                  "SSH_AUTH_SOCK=" + agent_socket};
    new_run();
}

Scene::~Scene() { remove_tree(root); }

void Scene::plant_table_files() {
    for (auto& folder : {worktree + "/secrets", home + "/cache", worktree + "/locked", worktree + "/vendor",
                         worktree + "/vendor/.git"})
        make_folder(folder);
    table.denied_in_allowed = worktree + "/secrets/token";
    table.allowed_in_denied_tree = worktree + "/table-visible.txt";
    table.in_denied_tree = home + "/table-notes.txt";
    table.suffix_in_allowed = worktree + "/deploy-keypair.json";
    table.exempt_suffix = worktree + "/exempt-keypair.json";
    table.denied_exempt = worktree + "/both-keypair.json";
    table.write_root_in_denied_tree = home + "/cache";
    table.write_denied = worktree + "/locked/state.txt";
    table.outside_file = outside + "/table.txt";
    table.denied_by_name = worktree + "/vendor/.git/HEAD";
    write_text(table.denied_in_allowed, "TABLE-P1-SECRET\n");
    write_text(table.allowed_in_denied_tree, "TABLE-P2-VISIBLE\n");
    write_text(table.in_denied_tree, "TABLE-P3-SECRET\n");
    write_text(table.suffix_in_allowed, "TABLE-P4-SECRET\n");
    write_text(table.exempt_suffix, "TABLE-P5-EXEMPT\n");
    write_text(table.denied_exempt, "TABLE-P6-SECRET\n");
    write_text(table.write_denied, "ORIGINAL\n");
    write_text(table.outside_file, "ORIGINAL\n");
    write_text(table.denied_by_name, "ref: refs/heads/main\n");
}

void Scene::set_ports(int allowed, int denied) {
    allowed_port = allowed;
    denied_port = denied;
    build_rules();
}

void Scene::new_run() {
    std::string run = root + "/run-" + std::to_string(++run_number_);
    make_folder(run);
    private_home = run + "/home";
    temp = run + "/tmp";
    make_folder(private_home);
    make_folder(temp);
    chmod(private_home.c_str(), 0700);
    chmod(temp.c_str(), 0700);
    give_to_owner(private_home);
    give_to_owner(temp);
    env = {"PATH=/usr/bin:/bin", "HOME=" + private_home, "TMPDIR=" + temp, "OMS_CHECK_MARK=exact value with spaces"};
    build_rules();
}

void Scene::build_rules() {
    const std::string why = "oms-backend-check: ";
    rules = {
        {OMS_RULE_ENV_PASS, "PATH", 0, why + "spec allowlist"},
        {OMS_RULE_ENV_PASS, "HOME", 0, why + "spec allowlist"},
        {OMS_RULE_ENV_PASS, "TMPDIR", 0, why + "spec allowlist"},
        {OMS_RULE_ENV_PASS, "OMS_CHECK_MARK", 0, why + "a variable the policy passes"},
        {OMS_RULE_READ_DENY_TREE, home, 0, why + "HOME"},
        {OMS_RULE_READ_DENY, home + "/.ssh", 0, why + "~/.ssh"},
        {OMS_RULE_READ_DENY_SUFFIX, "-keypair.json", 0, why + "keypair file"},
        {OMS_RULE_READ_ALLOW_TREE, worktree, 0, why + "worktree"},
        {OMS_RULE_READ_ALLOW_TREE, "/usr", 0, why + "toolchain"},
        {OMS_RULE_WRITE_ALLOW_TREE, worktree, 0, why + "worktree"},
        {OMS_RULE_WRITE_ALLOW_TREE, private_home, 0, why + "private HOME"},
        {OMS_RULE_WRITE_ALLOW_TREE, temp, 0, why + "run temp folder"},
        {OMS_RULE_WRITE_ALLOW_TREE, "/dev/null", 0, why + "device that stores nothing"},
        {OMS_RULE_WRITE_DENY, worktree + "/.git", 0, why + "the task's .git"},
        {OMS_RULE_WRITE_DENY, pinned, 0, why + "pinned verifier"},
        // The precedence table's rules (precedence_table.hpp).
        {OMS_RULE_READ_DENY, worktree + "/secrets", 0, why + "table P1: a denied folder inside the worktree"},
        {OMS_RULE_READ_ALLOW_TREE, table.exempt_suffix, 0, why + "table P5: a keypair exempted by name"},
        {OMS_RULE_READ_ALLOW_TREE, table.denied_exempt, 0, why + "table P6: exempted by name"},
        {OMS_RULE_READ_DENY, table.denied_exempt, 0, why + "table P6: and denied by name"},
        {OMS_RULE_WRITE_ALLOW_TREE, table.write_root_in_denied_tree, 0, why + "table P7: a write root under HOME"},
        {OMS_RULE_WRITE_DENY, worktree + "/locked", 0, why + "table P8: a denied folder in the worktree"},
    };
    rules.push_back({OMS_RULE_WRITE_DENY_NAME, ".git", 0, why + "table P9: every .git"});
    if (allowed_port) rules.push_back({OMS_RULE_NET_CONNECT_LOOPBACK, "", allowed_port, why + "allowed port"});
}

const oms_run_context* Scene::context(const std::vector<std::string>& argv) {
    argv_ = argv;
    auto view = [](const std::vector<std::string>& from, std::vector<const char*>& to) {
        to.clear();
        for (auto& s : from) to.push_back(s.c_str());
        return oms_strings{to.empty() ? nullptr : to.data(), to.size()};
    };
    context_ = {};
    context_.struct_size = sizeof(oms_run_context);
    context_.platform = "linux";
    context_.home = home.c_str();
    context_.worktree = worktree.c_str();
    context_.private_home = private_home.c_str();
    context_.temp_dir = temp.c_str();
    context_.state_dir = root.c_str();
    context_.parent_env = view(parent_env, parent_view_);
    context_.pinned = view(pinned_files, pinned_view_);
    context_.argv = view(argv_, argv_view_);
    return &context_;
}

const oms_policy* Scene::policy() {
    handed_ = rules;
    lowered = abi::lower_rules(handed_, backend_kinds, worktree, backend_id);
    rule_view_.clear();
    for (auto& r : handed_)
        rule_view_.push_back({sizeof(oms_rule), r.kind, {r.value.data(), r.value.size()}, r.number,
                              {r.origin.data(), r.origin.size()}});
    env_view_.clear();
    for (auto& e : env) env_view_.push_back(e.c_str());
    policy_ = {sizeof(oms_policy), rule_view_.data(), rule_view_.size(), {env_view_.data(), env_view_.size()}};
    return &policy_;
}

}  // namespace oms::backend_check
