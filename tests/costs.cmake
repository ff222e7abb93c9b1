# SPDX-License-Identifier: Apache-2.0
# ctest starts the costliest tests first (-j2 in the test presets). Without
# this, a fresh build tree (every CI run) has no timings of its own and runs
# the tests in the order they are declared, which started the longest ones
# (64 and 51 s of the dev step's 285 s of test time) late and left one
# worker idle at the end. COST is seconds measured in the dev step, or in
# the asan step for the tests that are only long there; ctest replaces them
# with its own timings (Testing/Temporary/CTestCostData.txt) after the first
# run. A name that matches no test (say, a renamed one) is ignored. Included
# after the files catch_discover_tests writes, so the Catch2 tests exist
# here.
set_tests_properties(
  [==[re-plans on tiny fleets change the fewest GPUs, by brute force]==]
  PROPERTIES COST 13)
set_tests_properties(
  [==[simulate --size finds a count that meets the target and one fewer that does not]==]
  PROPERTIES COST 22)
set_tests_properties(
  [==[plan: any positive cost plans as cost 1, and totals print as typed]==]
  PROPERTIES COST 13)
set_tests_properties(
  [==[plans on a100-40gb match the brute force on every demand up to 3 GPUs]==]
  PROPERTIES COST 11)
set_tests_properties(
  [==[every catalog name and pci id resolves in check's model: and device-filter]==]
  PROPERTIES COST 11)
set_tests_properties(
  [==[any positive cost of a one-model fleet gives the plan of cost 1]==]
  PROPERTIES COST 11)
set_tests_properties(
  [==[plans on two models with costs and limits match a brute force]==]
  PROPERTIES COST 10)
set_tests_properties(
  [==[pack --emit says which created profiles have inferred values]==]
  PROPERTIES COST 8)
# The asan preset's shards (one ctest test per test file,
# MIGPLAN_TEST_SHARDS): seconds under ASan + UBSan, two at a time on the
# 2-core machine. simulate_test alone is more than half of the step's wall
# time, so it must not start last.
set_tests_properties(cli_tests/simulate_test PROPERTIES COST 155)
set_tests_properties(cli_tests/plan_cli_test PROPERTIES COST 68)
set_tests_properties(cli_tests/golden_test PROPERTIES COST 28)
set_tests_properties(cli_tests/check_test PROPERTIES COST 25)
set_tests_properties(cli_tests/parity_test PROPERTIES COST 18)
set_tests_properties(fuzz_queue_corpus PROPERTIES COST 18)
set_tests_properties(cli_tests/emit_test PROPERTIES COST 17)
