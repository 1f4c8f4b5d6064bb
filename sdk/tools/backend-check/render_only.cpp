#include "render_only.hpp"

#include "decision_oracle.hpp"
#include "obligations.hpp"
#include "precedence_table.hpp"

#include <cstdio>
#include <cstring>

namespace oms::backend_check {
namespace {

Result check_config_keys(const oms_plugin_descriptor& descriptor) {
    std::string names, problem;
    const auto* base = reinterpret_cast<const unsigned char*>(descriptor.config_keys);
    const size_t stride = descriptor.config_key_count ? descriptor.config_keys[0].struct_size : 0;
    if (descriptor.config_key_count && stride < sizeof(oms_config_key))
        return {"config-keys", Verdict::fail, "config_keys' struct_size is below ABI 1.0's"};
    for (size_t i = 0; i < descriptor.config_key_count; ++i) {
        const auto& key = *reinterpret_cast<const oms_config_key*>(base + i * stride);
        const std::string name = key.name ? key.name : "";
        if (name.empty()) problem = "a key without a name";
        else if (!key.description || !*key.description) problem = "key '" + name + "' has no description";
        else if (key.type < OMS_CONFIG_STRING || key.type > OMS_CONFIG_INTEGER_ARRAY)
            problem = "key '" + name + "' has an unknown type";
        names += (names.empty() ? "" : ", ") + name;
    }
    if (!problem.empty()) return {"config-keys", Verdict::fail, problem};
    return {"config-keys", Verdict::pass,
            std::to_string(descriptor.config_key_count) + " declared, each named, typed and described" +
                (names.empty() ? "" : " (" + names + ")")};
}

std::vector<Result> table_by_oracle(Scene& scene, const std::string& rendered_file,
                                    const std::string& oracle, const std::vector<std::string>& missing) {
    const auto rows = precedence_rows(scene);
    std::vector<std::string> queries, answers;
    for (auto& row : rows) queries.push_back((row.access == Access::read ? "read " : "write ") + row.path);
    std::string error;
    std::vector<Result> results;
    if (!ask_oracle(oracle, rendered_file, scene.root, queries, answers, error)) {
        for (auto& row : rows) results.push_back({"precedence " + row.id, Verdict::fail, "the oracle could not tell: " + error});
        return results;
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        Result result = judge(rows[i], answers[i] == "allow", missing);
        result.reason += " (by the rendered plan, per " + oracle.substr(oracle.rfind('/') + 1) + ")";
        results.push_back(result);
    }
    return results;
}

}  // namespace

int check_render_only(const LoadedBackend& backend, Scene& scene, const std::string& oracle) {
    const auto& descriptor = backend.descriptor();
    int failures = 0;
    auto report = [&failures](const Result& result) {
        print_result(result);
        if (result.verdict == Verdict::fail) ++failures;
    };
    report({"abi", Verdict::pass, "descriptor loaded: built for ABI " + std::to_string(descriptor.abi_major) + "." +
                                      std::to_string(descriptor.abi_minor) + ", kind backend, platforms " +
                                      (backend.api().platforms ? backend.api().platforms : "(none)")});
    report(check_config_keys(descriptor));
    std::vector<ReportLine> probe_lines;
    std::string probe_reason;
    const oms_status probe_status = backend.probe(probe_lines, probe_reason);
    std::vector<std::string> missing;
    for (auto& line : probe_lines)
        if (line.kind == OMS_REPORT_MISSING) missing.push_back(line.text);
    const std::string why_not_run =
        "not executed: --render-only (this backend's commands cannot run on this host" +
        std::string(probe_status != OMS_OK ? "; probe: " + probe_reason : "") + ")";
    std::vector<ReportLine> rendered;
    std::string render_reason;
    scene.new_run();
    const oms_status status = backend.render(scene.context({"/bin/sh", "-c", "true"}), scene.policy(), rendered, render_reason);
    std::string text;
    for (auto& line : rendered)
        if (line.kind == OMS_REPORT_TEXT) text += line.text + "\n";
    if (status != OMS_OK || text.empty()) {
        report({"render", Verdict::fail, "render of the kit's policy failed (status " + std::to_string(status) + "): " + render_reason});
    } else {
        report({"render", Verdict::pass, "the kit's policy rendered (" + std::to_string(rendered.size()) + " lines)"});
        const std::string rendered_file = scene.root + "/rendered.txt";
        write_text(rendered_file, text);
        if (oracle.empty()) {
            print_result({"precedence", Verdict::not_checked, "no --decide-with oracle for the rendered text"});
        } else {
            for (auto& result : table_by_oracle(scene, rendered_file, oracle, missing)) report(result);
        }
    }
    int not_run = 0;
    for (auto* names : {&process_obligation_names(), &confinement_obligation_names()})
        for (auto& name : *names) {
            if (name == "precedence") continue;  // answered above from the rendered plan, or NOT CHECKED
            print_result({name, Verdict::not_run, why_not_run});
            ++not_run;
        }
    if (failures) {
        std::printf("FAILED: %d obligation(s) failed; %d run obligation(s) NOT RUN\n", failures, not_run);
        return 1;
    }
    std::printf("RENDER-ONLY: 0 failed; %d run obligation(s) NOT RUN (not executed on this host), so this is no pass\n", not_run);
    return kExitNotRun;
}

}  // namespace oms::backend_check
