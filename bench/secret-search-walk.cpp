// The SDK's keypair search (find_secrets, oms/secret_search.hpp) timed on
// one tree: ROUNDS searches, the median and the fastest printed in ms. Built
// by bench/secret-search.sh against each build's SDK.
#include <oms/secret_search.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: secret-search-walk TREE ROUNDS\n");
        return 2;
    }
    oms::sdk::SecretSearch search{"bench", {argv[1]}, {"-keypair.json", "/id.json"}, {}, {".git"}};
    std::vector<double> ms;
    for (int round = 0; round < std::atoi(argv[2]); ++round) {
        const auto start = std::chrono::steady_clock::now();
        const auto found = oms::sdk::find_secrets(search);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        if (!found.complete) return 1;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%.2f %.2f\n", ms[ms.size() / 2], ms.front());
    return 0;
}
