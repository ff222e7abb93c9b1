// SPDX-License-Identifier: Apache-2.0
// The baseline of bench/startup.sh: the least a static C++ program that
// writes a line through iostreams costs to start and exit.
#include <iostream>

int main() {
  std::cout << "hello\n";
  return 0;
}
