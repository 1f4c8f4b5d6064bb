#include "sbpl_filters.hpp"

#include <regex>
#include <vector>

namespace oms::test::sbpl {

namespace {

using Parameters = std::map<std::string, std::string>;

[[noreturn]] void fail(const Node& node, const std::string& what) {
    throw ParseError(what + " at byte " + std::to_string(node.offset));
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

bool is_file_operation(const std::string& operation) { return starts_with(operation, "file"); }

// A string argument: "text", #"regex" or (param "NAME").
std::string string_value(const Node& node, const Parameters& parameters) {
    if (node.type == Node::Type::string) return node.text;
    if (node.type == Node::Type::list && node.items.size() == 2 && node.items[0].is_symbol("param") &&
        node.items[1].type == Node::Type::string) {
        auto found = parameters.find(node.items[1].text);
        if (found == parameters.end()) fail(node, "undefined parameter \"" + node.items[1].text + "\"");
        return found->second;
    }
    fail(node, "expected a string or (param \"NAME\")");
}

std::string single_argument(const Node& node, const Parameters& parameters) {
    if (node.items.size() != 2) fail(node, "filter " + node.items[0].text + " takes one argument");
    return string_value(node.items[1], parameters);
}

// ---------------------------------------------------------------- paths

class PathFilter final : public Filter {
public:
    enum class Kind { literal, subpath, prefix, regex };
    PathFilter(Kind kind, std::string value) : kind_(kind), value_(std::move(value)) {
        if (kind_ == Kind::regex) pattern_ = std::regex(value_, std::regex::extended);
    }
    bool matches(const Query& query) const override {
        if (!is_file_operation(query.operation)) return false;
        const std::string& path = query.target;
        switch (kind_) {
            case Kind::literal: return path == value_;
            case Kind::prefix: return starts_with(path, value_);
            case Kind::regex: return std::regex_search(path, pattern_);
            case Kind::subpath:
                if (value_ == "/") return starts_with(path, "/");
                return starts_with(path, value_) && (path.size() == value_.size() || path[value_.size()] == '/');
        }
        return false;
    }

private:
    Kind kind_;
    std::string value_;
    std::regex pattern_;
};

std::shared_ptr<const Filter> make_path_filter(const Node& node, PathFilter::Kind kind, const Parameters& parameters) {
    const std::string value = single_argument(node, parameters);
    if (kind != PathFilter::Kind::regex && (value.empty() || value[0] != '/'))
        fail(node, node.items[0].text + " needs an absolute path, got \"" + value + "\"");
    try {
        return std::make_shared<PathFilter>(kind, value);
    } catch (const std::regex_error& e) {
        fail(node, std::string("invalid regex: ") + e.what());
    }
}

// ---------------------------------------------------------------- network

struct Address {
    std::string host;
    std::string port;
};

Address split_address(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) return {text, ""};
    return {text.substr(0, colon), text.substr(colon + 1)};
}

bool is_loopback(const std::string& host) {
    return host == "localhost" || starts_with(host, "127.") || host == "::1" || host == "[::1]";
}

class IpFilter final : public Filter {
public:
    IpFilter(bool remote, Address spec) : remote_(remote), spec_(std::move(spec)) {}
    bool matches(const Query& query) const override {
        if (query.operation == "network-outbound") return remote_ ? address_matches(query.target) : true;
        if (query.operation == "network-bind" || query.operation == "network-inbound")
            return !remote_ && address_matches(query.target);
        return false;
    }

private:
    bool address_matches(const std::string& target) const {
        const Address actual = split_address(target);
        const bool host_ok = spec_.host == "*" || is_loopback(actual.host);
        return host_ok && (spec_.port == "*" || spec_.port == actual.port);
    }
    bool remote_;
    Address spec_;
};

bool is_port(const std::string& text) {
    if (text == "*") return true;
    if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    const long port = std::stol(text);
    return port >= 1 && port <= 65535;
}

// (remote ip "localhost:8899"): Seatbelt accepts only "localhost" or "*" as host.
std::shared_ptr<const Filter> make_ip_filter(const Node& node, const Parameters& parameters) {
    if (node.items.size() != 3 || !node.items[1].is_symbol("ip")) fail(node, "expected (remote|local ip \"HOST:PORT\")");
    const std::string text = string_value(node.items[2], parameters);
    const Address spec = split_address(text);
    if ((spec.host != "localhost" && spec.host != "*") || !is_port(spec.port))
        fail(node, "invalid ip address \"" + text + "\" (host must be localhost or *)");
    return std::make_shared<IpFilter>(node.items[0].is_symbol("remote"), spec);
}

// ---------------------------------------------------------------- mach

class GlobalNameFilter final : public Filter {
public:
    explicit GlobalNameFilter(std::string name) : name_(std::move(name)) {}
    bool matches(const Query& query) const override { return query.operation == "mach-lookup" && query.target == name_; }

private:
    std::string name_;
};

// ---------------------------------------------------------------- combinators

class CombinedFilter final : public Filter {
public:
    enum class Kind { any, all, negate };
    CombinedFilter(Kind kind, std::vector<std::shared_ptr<const Filter>> parts) : kind_(kind), parts_(std::move(parts)) {}
    bool matches(const Query& query) const override {
        if (kind_ == Kind::negate) return !parts_[0]->matches(query);
        for (const auto& part : parts_) {
            const bool hit = part->matches(query);
            if (kind_ == Kind::any && hit) return true;
            if (kind_ == Kind::all && !hit) return false;
        }
        return kind_ == Kind::all;
    }

private:
    Kind kind_;
    std::vector<std::shared_ptr<const Filter>> parts_;
};

std::shared_ptr<const Filter> make_combined(const Node& node, CombinedFilter::Kind kind, const Parameters& parameters) {
    std::vector<std::shared_ptr<const Filter>> parts;
    for (size_t i = 1; i < node.items.size(); ++i) parts.push_back(make_filter(node.items[i], parameters));
    if (parts.empty()) fail(node, node.items[0].text + " needs at least one filter");
    if (kind == CombinedFilter::Kind::negate && parts.size() != 1) fail(node, "require-not takes one filter");
    return std::make_shared<CombinedFilter>(kind, std::move(parts));
}

}  // namespace

std::shared_ptr<const Filter> make_filter(const Node& node, const Parameters& parameters) {
    if (node.type != Node::Type::list || node.items.empty() || node.items[0].type != Node::Type::symbol)
        fail(node, "expected a filter");
    const std::string& name = node.items[0].text;
    if (name == "literal") return make_path_filter(node, PathFilter::Kind::literal, parameters);
    if (name == "subpath") return make_path_filter(node, PathFilter::Kind::subpath, parameters);
    if (name == "prefix") return make_path_filter(node, PathFilter::Kind::prefix, parameters);
    if (name == "regex") return make_path_filter(node, PathFilter::Kind::regex, parameters);
    if (name == "remote" || name == "local") return make_ip_filter(node, parameters);
    if (name == "global-name") return std::make_shared<GlobalNameFilter>(single_argument(node, parameters));
    if (name == "require-any") return make_combined(node, CombinedFilter::Kind::any, parameters);
    if (name == "require-all") return make_combined(node, CombinedFilter::Kind::all, parameters);
    if (name == "require-not") return make_combined(node, CombinedFilter::Kind::negate, parameters);
    fail(node, "unknown filter \"" + name + "\"");
}

}  // namespace oms::test::sbpl
