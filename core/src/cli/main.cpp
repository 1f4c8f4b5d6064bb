#include "oms/core/cli.hpp"

int main(int argc, char** argv) { return oms::core::run_cli(argc, argv); }
