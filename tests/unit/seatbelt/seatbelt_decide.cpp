// oms-seatbelt-decide RENDERED_FILE: the conformance kit's oracle for the
// seatbelt backend (oms-backend-check --render-only --decide-with), since
// Seatbelt cannot run here. It reads what the plugin's `render` printed (the
// profile, with its -D parameters in comment lines), loads it into the SBPL
// evaluator the profile tests use, and answers one query a line from stdin:
//   read PATH   -> "allow" when file-read-data is allowed
//   write PATH  -> "allow" when file-write-data AND file-write-create are (an
//                  `echo >> PATH` may need either; the stricter reading)
// Exit 2 with a message for a profile or a query it cannot read.
#include "sbpl_evaluator.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

namespace {

using oms::test::sbpl::Decision;
using oms::test::sbpl::Evaluator;

// One shell word as the renderer quotes it ('...' with '\'' for a quote).
bool unquote(const std::string& text, std::string& out) {
    out.clear();
    size_t at = 0;
    while (at < text.size() && text[at] != ' ') {
        if (text.compare(at, 4, "'\\''") == 0) {
            out += '\'';
            at += 4;
        } else if (text[at] == '\'') {
            size_t end = text.find('\'', at + 1);
            if (end == std::string::npos) return false;
            out += text.substr(at + 1, end - at - 1);
            at = end + 1;
        } else {
            return false;  // $'...' (control bytes) or bare text: not produced for the kit's paths
        }
    }
    return true;
}

// The -D NAME=VALUE parameters from the ";;   -D 'NAME=VALUE'   ; origin" lines.
bool parameters_of(const std::string& rendered, std::map<std::string, std::string>& parameters, std::string& error) {
    std::istringstream lines(rendered);
    const std::string lead = ";;   -D ";
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(lead, 0) != 0) continue;
        std::string word;
        if (!unquote(line.substr(lead.size()), word) || word.find('=') == std::string::npos) {
            error = "cannot read the parameter line: " + line;
            return false;
        }
        parameters[word.substr(0, word.find('='))] = word.substr(word.find('=') + 1);
    }
    return true;
}

bool allowed(const Evaluator& profile, const std::string& operation, const std::string& path) {
    return profile.decide({operation, path}) == Decision::allow;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: oms-seatbelt-decide RENDERED_FILE < queries\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    std::stringstream rendered;
    rendered << in.rdbuf();
    std::map<std::string, std::string> parameters;
    std::string error;
    if (!in || !parameters_of(rendered.str(), parameters, error)) {
        std::cerr << "oms-seatbelt-decide: " << (error.empty() ? std::string("cannot read ") + argv[1] : error) << "\n";
        return 2;
    }
    try {
        Evaluator profile(rendered.str(), parameters);
        for (std::string query; std::getline(std::cin, query);) {
            if (query.rfind("read ", 0) == 0) {
                std::cout << (allowed(profile, "file-read-data", query.substr(5)) ? "allow" : "deny") << "\n";
            } else if (query.rfind("write ", 0) == 0) {
                const std::string path = query.substr(6);
                bool both = allowed(profile, "file-write-data", path) && allowed(profile, "file-write-create", path);
                std::cout << (both ? "allow" : "deny") << "\n";
            } else {
                std::cerr << "oms-seatbelt-decide: unknown query: " << query << "\n";
                return 2;
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "oms-seatbelt-decide: the rendered profile cannot be evaluated: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
