// Keypair attacks that take more than one run: a command plants something
// next to where a key will be, the user copies the key in between runs (as
// `cp` does: into the existing file, through a link, into a folder of that
// name), and the next run reads the key under a name no suffix rule matches.
// A backend that finds keypair files by their names alone fails these; one
// that looks at what the names lead to (docs/writing-a-backend.md, "The
// keypair search") hides or refuses. Each verdict comes from host-side
// evidence: the attack is armed only when the host sees the key under the
// other name, and a run that reads the key prints its marker.
#include "obligations.hpp"

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace oms::backend_check {
namespace {

// What a reader run prints before anything else, and what a harmless file
// beside the attack holds (its read is the positive control).
constexpr const char* kStarted = "KIT-READER-STARTED";
constexpr const char* kControl = "KIT-CONTROL-READABLE";

std::string key_text(const std::string& obligation) { return "KIT-KEY-" + obligation + "-SECRET\n"; }

// Each file's content follows a line naming it, so a failure can say
// which name gave the key away.
std::string reader_script(const std::vector<std::string>& paths, const std::string& control) {
    std::string script = std::string("echo ") + kStarted + "; for f in";
    for (auto& path : paths) script += " " + quoted(path);
    return script + " " + quoted(control) + "; do echo \"== $f\"; cat \"$f\" 2>&1; done";
}

// The name printed before the key's marker in a reader's output.
std::string name_read(const std::string& out, const std::string& marker) {
    const size_t at = out.find(marker);
    const size_t header = at == std::string::npos ? std::string::npos : out.rfind("== ", at);
    if (header == std::string::npos) return "?";
    return out.substr(header + 3, out.find('\n', header) - header - 3);
}

// A reader run's result: the key's marker anywhere fails; otherwise the run
// was refused (nothing started), or it started and read the harmless file.
Result judge_reader(const std::string& name, const std::string& key, const Outcome& outcome, const std::string& how) {
    const std::string marker = key.substr(0, key.size() - 1);
    if (has(outcome.out, marker) || has(outcome.err, marker))
        return {name, Verdict::fail, "the key was read in the next run " + how + ", at " + name_read(outcome.out, marker)};
    if (!outcome.spawned)
        return {name, Verdict::pass, "the next run was refused: " + outcome.spawn_error};
    if (!has(outcome.out, kStarted))
        return {name, Verdict::pass, "the next run did not start its command (" + describe(outcome) + "): " +
                                         outcome.err.substr(0, 200)};
    if (!has(outcome.out, kControl))
        return {name, Verdict::fail, "positive control: the next run could not read a harmless file beside the attack, " +
                                         describe(outcome) + " output: " + outcome.out};
    return {name, Verdict::pass, "the key was not read " + how + "; a file beside it was"};
}

// Runs the planting command; "" when it planted, else why the attack could
// not be set up (which the backend prevented: a pass).
std::string plant(Bench& bench, const std::string& script) {
    Outcome outcome = bench.shell(script + " && echo KIT-PLANTED");
    if (has(outcome.out, "KIT-PLANTED")) return "";
    return outcome.spawned ? "the command could not plant it (" + describe(outcome) + ": " + outcome.err.substr(0, 200) + ")"
                           : "the planting run was refused: " + outcome.spawn_error;
}

// keypair-hard-link: an empty keypair-named file and a second name for it,
// made in one run; the user's key copied over the keypair name; the second
// name read in the next.
Result check_hard_link(Bench& bench, const std::string& folder) {
    const char* name = "keypair-hard-link";
    const std::string keypair = folder + "/deploy-keypair.json", other = folder + "/notes.txt";
    const std::string key = key_text("hard-link");
    std::string prevented = plant(bench, "mkdir -p " + quoted(folder) + " && : > " + quoted(keypair) + " && ln " +
                                             quoted(keypair) + " " + quoted(other));
    if (!prevented.empty()) return {name, Verdict::pass, prevented};
    write_text(keypair, key);  // the user's copy: into the existing file
    write_text(folder + "/control.txt", std::string(kControl) + "\n");
    if (read_text(other) != key) return {name, Verdict::pass, "the second name does not show the key on the host"};
    return judge_reader(name, key, bench.shell(reader_script({other}, folder + "/control.txt")),
                        "through a hard link (notes.txt)");
}

// keypair-folder-name: a folder planted under the keypair's name; the user's
// copy lands inside it under the source's own name.
Result check_folder_name(Bench& bench, const std::string& folder) {
    const char* name = "keypair-folder-name";
    const std::string keypair = folder + "/wallet-keypair.json", landed = keypair + "/id.json";
    const std::string key = key_text("folder-name");
    std::string prevented = plant(bench, "mkdir -p " + quoted(keypair));
    if (!prevented.empty()) return {name, Verdict::pass, prevented};
    write_text(landed, key);  // `cp ~/id.json wallet-keypair.json` with a folder there
    write_text(folder + "/control.txt", std::string(kControl) + "\n");
    return judge_reader(name, key, bench.shell(reader_script({landed}, folder + "/control.txt")),
                        "inside a folder named like a keypair (wallet-keypair.json/id.json)");
}

// keypair-link-to-file: a keypair-named link to a harmless file; the user's
// copy writes through the link; the harmless name read in the next run.
Result check_link_to_file(Bench& bench, const std::string& folder) {
    const char* name = "keypair-link-to-file";
    const std::string keypair = folder + "/release-keypair.json", target = folder + "/data.txt";
    const std::string key = key_text("link-to-file");
    std::string prevented = plant(bench, "mkdir -p " + quoted(folder) + " && echo harmless > " + quoted(target) +
                                             " && ln -s data.txt " + quoted(keypair));
    if (!prevented.empty()) return {name, Verdict::pass, prevented};
    write_text(keypair, key);  // through the link, as cp writes
    write_text(folder + "/control.txt", std::string(kControl) + "\n");
    if (read_text(target) != key) return {name, Verdict::pass, "the link's target does not show the key on the host"};
    // A mask on the link's target holds while the link is there: the next
    // run removes the link (it lies in a write root), the one after reads.
    Outcome next = bench.shell(reader_script({target}, folder + "/control.txt") + "; rm -f " + quoted(keypair));
    Result first = judge_reader(name, key, next, "under the link's target's name (data.txt)");
    if (first.verdict == Verdict::fail || path_exists(keypair)) return first;
    return judge_reader(name, key, bench.shell(reader_script({target}, folder + "/control.txt")),
                        "under the link's target's name (data.txt), once a run had removed the link");
}

// keypair-rename-race: the key's folder renamed back and forth (what a
// concurrent run's command may do in the worktree; here a thread of the
// kit, since a plugin is called from one thread at a time) while runs
// start. Many padding files make listing the parent take several reads, so a
// search that lists, then opens by name, meets the folder gone or moved.
Result check_rename_race(Bench& bench, const std::string& folder) {
    const char* name = "keypair-rename-race";
    const std::string here = folder + "/k", there = folder + "/j";
    const std::string key = key_text("rename-race");
    make_folder(folder);
    make_folder(here);
    for (int i = 0; i < 600; ++i) write_text(folder + "/pad-" + std::to_string(i), "");
    write_text(here + "/hot-keypair.json", key);
    write_text(folder + "/control.txt", std::string(kControl) + "\n");
    // Stopped and joined however the runs end (a throw included).
    struct Renamer {
        std::atomic<bool> stop{false};
        std::thread thread;
        Renamer(const std::string& a, const std::string& b)
            : thread([this, a, b] {
                  while (!stop) {
                      std::rename(a.c_str(), b.c_str());
                      std::rename(b.c_str(), a.c_str());
                  }
              }) {}
        ~Renamer() { halt(); }
        void halt() {
            stop = true;
            if (thread.joinable()) thread.join();
        }
    } renamer(here, there);
    constexpr int kRuns = 12;
    int started = 0, refused = 0;
    Result verdict{name, Verdict::pass, ""};
    for (int i = 0; i < kRuns && verdict.verdict == Verdict::pass; ++i) {
        Outcome outcome = bench.shell(reader_script({here + "/hot-keypair.json", there + "/hot-keypair.json"},
                                                    folder + "/control.txt"));
        Result one = judge_reader(name, key, outcome, "while its folder was being renamed (run " +
                                                          std::to_string(i + 1) + " of " + std::to_string(kRuns) + ")");
        if (one.verdict == Verdict::fail) verdict = one;
        if (has(outcome.out, kStarted)) ++started;
        else ++refused;
    }
    renamer.halt();
    if (verdict.verdict == Verdict::fail) return verdict;
    // Once nothing moves, a run must work there (the refusals were the race's).
    Outcome calm = bench.shell(reader_script({}, folder + "/control.txt"));
    if (!has(calm.out, kControl))
        return {name, Verdict::fail, "positive control: with the folder still, a run could not read a file beside it, " +
                                         describe(calm)};
    return {name, Verdict::pass, "the key was not read in " + std::to_string(kRuns) + " runs started while its folder "
                                 "moved (" + std::to_string(started) + " ran, " + std::to_string(refused) +
                                 " refused); a file beside it was"};
}

}  // namespace

std::vector<Result> check_keypair_attacks(Bench& bench) {
    const std::string base = bench.scene.worktree + "/kit-attacks";
    make_folder(base);
    chmod(base.c_str(), 0777);  // the commands plant their folders here, as whatever user the backend runs them
    // Each attack's folder goes when it is judged: a backend that refuses
    // to run beside one (a fail-closed answer) must not fail the next.
    std::vector<Result> results;
    results.push_back(check_hard_link(bench, base + "/hard-link"));
    remove_tree(base + "/hard-link");
    results.push_back(check_folder_name(bench, base + "/folder-name"));
    remove_tree(base + "/folder-name");
    results.push_back(check_link_to_file(bench, base + "/link-to-file"));
    remove_tree(base + "/link-to-file");
    results.push_back(check_rename_race(bench, base + "/rename-race"));
    remove_tree(base);  // what later checks walk stays as it was
    return results;
}

}  // namespace oms::backend_check
