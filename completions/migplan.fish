# SPDX-License-Identifier: Apache-2.0
# fish completion for migplan: commands, options, GPU slugs, the profile names
# of the GPU on the line, check's --format values, and files. GPU slugs and
# profile names come from the migplan on PATH (`migplan gpus --json`,
# `migplan profiles --json`) when completing, so they follow its catalog.
# Installed as share/fish/vendor_completions.d/migplan.fish; from a source
# tree: source completions/migplan.fish

# The --gpu-file options on the line (before or after the command): their
# models are offered beside the built-in ones.
function __migplan_gpu_files
    set -l tokens (commandline -opc)
    set -l i 1
    while test $i -le (count $tokens)
        switch $tokens[$i]
            case --gpu-file
                set i (math $i + 1)
                test $i -le (count $tokens); and printf '%s\n' --gpu-file $tokens[$i]
            case '--gpu-file=*'
                printf '%s\n' --gpu-file (string replace -- --gpu-file= '' $tokens[$i])
        end
        set i (math $i + 1)
    end
end

# The slug of every model: the "id" of each entry of `gpus --json`, leaving out
# the "id" fields inside "pci_ids".
function __migplan_gpus
    command migplan (__migplan_gpu_files) gpus --json 2>/dev/null | awk '
        /"pci_ids": \[/ { if ($0 !~ /\]/) in_pci = 1; next }
        in_pci { if ($0 ~ /^[[:space:]]*\]/) in_pci = 0; next }
        /^[[:space:]]*"id": "/ { sub(/^[[:space:]]*"id": "/, ""); sub(/".*/, ""); print }'
end

# Profile names for a pack ITEM, [Nx]PROFILE[@START]: those of the GPU given
# with -g/--gpu on the line (of every model without one), after any count. A
# model entry of `profiles --json` starts with its "id", a string (a profile's
# "id" is a number), and its own "name" comes before its "profiles".
function __migplan_items
    set -l tokens (commandline -opc)
    set -l gpu
    set -l i 1
    while test $i -le (count $tokens)
        switch $tokens[$i]
            case -g --gpu
                set i (math $i + 1)
                test $i -le (count $tokens); and set gpu $tokens[$i]
            case '--gpu=*'
                set gpu (string replace -- --gpu= '' $tokens[$i])
        end
        set i (math $i + 1)
    end
    set -l count (string match -r -- '^[0-9]+x' (commandline -ct))
    set -l args
    test -n "$gpu"; and set args --gpu $gpu
    command migplan (__migplan_gpu_files) profiles $args --json 2>/dev/null | awk '
        /"id": "/ { in_profiles = 0 }
        /"profiles": \[/ { in_profiles = 1; next }
        in_profiles && /^[[:space:]]*"name": "/ {
            sub(/^[[:space:]]*"name": "/, ""); sub(/".*/, "")
            if (!seen[$0]++) print
        }' | string replace -r -- '^' "$count"
end

# True when the token being completed does not start with a dash.
function __migplan_not_option
    not string match -q -- '-*' (commandline -ct)
end

set -l commands pack plan simulate place enumerate fit gpus profiles check emit-config import

complete -c migplan -f
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -s h -l help -d 'Print help and exit'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -l version -d 'Print the version and exit'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -l gpu-file -r -F -d 'Model file whose GPU model this run may use (repeatable)'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a pack -d 'Place instances on a GPU, or say why they do not fit'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a enumerate -d 'List every feasible geometry of a GPU'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a plan -d 'The fewest GPUs and their MIG geometries for a workload mix, or the fewest changes'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a simulate -d 'Replay a trace of pods: static vs dynamic MIG, placement policies, fleet size'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a place -d 'Where one arriving instance goes on the fleet as it is, per placement policy'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a fit -d 'Size a workload: smallest profile, instances per GPU, GPUs needed'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a gpus -d 'List the supported GPU models'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a profiles -d 'List GPU-instance profiles and placements, with sources'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a check -d 'Validate geometry files, mig-parted configs and HAMi MIG templates'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a emit-config -d 'Write a mig-parted config for catalog models'
complete -c migplan -n "not __fish_seen_subcommand_from $commands" -a import -d 'Write a model file from nvidia-smi mig -lgip and -lgipp output'

for cmd in $commands
    complete -c migplan -n "__fish_seen_subcommand_from $cmd" -s h -l help -d 'Print help and exit'
    complete -c migplan -n "__fish_seen_subcommand_from $cmd" -l gpu-file -r -F -d 'Model file whose GPU model this run may use (repeatable)'
end

# pack
complete -c migplan -n '__fish_seen_subcommand_from pack' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model (inferred when omitted)'
complete -c migplan -n '__fish_seen_subcommand_from pack' -s a -l all -d 'Show every layout with its score'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l json -d 'One JSON object on stdout'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l batch -r -F -a - -d 'Read one request per line from FILE (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l brief -d 'With --batch: one tab-separated line per request'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l plot -r -F -d 'Write the preferred layout as SVG (- for stdout)'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l current -r -F -a - -d 'Existing GPU instances: nvidia-smi mig -lgi output (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l index -x -d 'With --current: the GPU of the listing; with --emit: the GPU -i targets'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l emit -x -a 'nvidia-smi nvml mig-parted k8s dra slurm' -d 'Write what creates the layout'
complete -c migplan -n '__fish_seen_subcommand_from pack' -l node -x -d 'With --emit dra: the Kubernetes node of the GPU'
complete -c migplan -n '__fish_seen_subcommand_from pack; and __migplan_not_option' -a '(__migplan_items)' -d profile

# enumerate
complete -c migplan -n '__fish_seen_subcommand_from enumerate' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model'
complete -c migplan -n '__fish_seen_subcommand_from enumerate' -l maximal -d 'Only geometries to which no instance can be added'
complete -c migplan -n '__fish_seen_subcommand_from enumerate' -l json -d 'One JSON object on stdout'

# plan
complete -c migplan -n '__fish_seen_subcommand_from plan' -s g -l gpu -x -a '(__migplan_gpus)' -d 'Candidate GPU model (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l demand -r -F -a - -d 'Demand file (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l available -x -d 'MODEL=N: at most N GPUs of a model'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l cost -x -d 'MODEL=X: cost of one GPU of a model'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l fleet -r -F -a - -d 'Fleet file: nodes and/or models'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l current -r -F -a - -d 'Re-plan: state file or kubectl nodes JSON'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l mig-config -r -F -a - -d 'With --current: the mig-parted config'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l allow-evict -d 'With --current: may destroy instances in use'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l time-limit -x -d 'Stop the solver after SECONDS'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l json -d 'One JSON object on stdout'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l full -d 'List every item, node and change in the report'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l emit -x -a 'mig-parted configmap labels slurm' -d 'Write the plan for the tools that apply it'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l configmap-name -x -d 'With --emit configmap: the ConfigMap name'
complete -c migplan -n '__fish_seen_subcommand_from plan' -l plot -r -F -d 'Write the fleet as an SVG picture'
complete -c migplan -n '__fish_seen_subcommand_from plan; and __migplan_not_option' -a '(__migplan_items)' -d profile

# fit
complete -c migplan -n '__fish_seen_subcommand_from fit' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model'
complete -c migplan -n '__fish_seen_subcommand_from fit' -s m -l memory -x -d 'Memory per instance (12Gi, 12G, 12GB)'
complete -c migplan -n '__fish_seen_subcommand_from fit' -l sms -x -d 'SMs per instance'
complete -c migplan -n '__fish_seen_subcommand_from fit' -s k -l count -x -d 'Instances wanted (default 1)'
complete -c migplan -n '__fish_seen_subcommand_from fit' -l json -d 'One JSON object on stdout'

# gpus
complete -c migplan -n '__fish_seen_subcommand_from gpus' -l json -d 'One JSON object on stdout'

# profiles
complete -c migplan -n '__fish_seen_subcommand_from profiles' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model (all when omitted)'
complete -c migplan -n '__fish_seen_subcommand_from profiles' -l json -d 'One JSON object on stdout'
complete -c migplan -n '__fish_seen_subcommand_from profiles' -l ci -d 'List the compute-instance profiles of each GPU-instance profile'

# check
complete -c migplan -n '__fish_seen_subcommand_from check' -s g -l gpu -x -a '(__migplan_gpus)' -d 'A GPU model of the fleet (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from check' -s c -l config -x -d 'Check only this mig-parted config label (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from check' -l strict -d 'Treat warnings as errors'
complete -c migplan -n '__fish_seen_subcommand_from check' -l format -x -a 'text json github' -d 'Output format'
complete -c migplan -n '__fish_seen_subcommand_from check' -l json -d 'Same as --format json'
complete -c migplan -n '__fish_seen_subcommand_from check' -l max-errors -x -d 'Diagnostics shown per file (0: all)'
complete -c migplan -n '__fish_seen_subcommand_from check' -s v -l verbose -d 'Also report where each geometry fits'
complete -c migplan -n '__fish_seen_subcommand_from check; and __migplan_not_option' -F -a - -d 'standard input'

# emit-config
complete -c migplan -n '__fish_seen_subcommand_from emit-config' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model (repeatable; every model when omitted)'
complete -c migplan -n '__fish_seen_subcommand_from emit-config' -s o -l output -r -F -d 'File to write (- or omitted: stdout)'
complete -c migplan -n '__fish_seen_subcommand_from emit-config' -l merge -r -F -d 'Your own labels: a mig-parted config or a ConfigMap'
complete -c migplan -n '__fish_seen_subcommand_from emit-config' -l configmap-name -x -d 'Name of the ConfigMap to write'
complete -c migplan -n '__fish_seen_subcommand_from emit-config' -l strict -d 'With --merge: warnings are errors'
# import
complete -c migplan -n '__fish_seen_subcommand_from import' -l lgip -r -F -a - -d 'nvidia-smi mig -lgip output (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from import' -l lgipp -r -F -a - -d 'nvidia-smi mig -lgipp output (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from import' -l name -x -d 'Slug of the model'
complete -c migplan -n '__fish_seen_subcommand_from import' -l description -x -d 'Description of the model'
complete -c migplan -n '__fish_seen_subcommand_from import' -l pci-id -x -d 'PCI device ID of the model (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from import' -l index -x -d 'The GPU of the listings'
complete -c migplan -n '__fish_seen_subcommand_from import' -s o -l output -r -F -d 'Write the model file to FILE'

complete -c migplan -n '__fish_seen_subcommand_from simulate' -l trace -r -F -a - -d 'Trace: CSV, YAML, JSON or Alibaba pod list (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -s g -l gpu -x -a '(__migplan_gpus)' -d 'GPU model of the fleet (repeatable with --size)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l gpus -x -d 'GPUs in the fleet (default: the static plan\'s)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l gpus-per-node -x -d 'GPUs per node (default 8)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l static-plan -r -F -d 'Static geometry: a plan --json answer'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l fleet -r -F -d 'Fleet file of several models to replay, or to --size each'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l current -r -F -a - -d 'The fleet as it is: state file, kubectl, or nvidia-smi'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l mig-config -r -F -d 'With kubectl --current: the mig-parted config'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l policy -x -a 'static static-pack spread-first-fit spread-best-fit pack-first-fit pack-best-fit dra-first-fit hami replan: replan-oracle:' -d 'Policy to replay (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l share -x -a 'compute memory' -d 'Serve gpu_milli by compute or memory share'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l size -d 'The fewest GPUs each policy needs'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l reject-target -x -d 'With --size: at most this percent of pods rejected'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l queue -d 'A pod that does not fit waits in a FIFO queue'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l backfill -d '--queue, and later pods that fit may go first'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l reconfigure-seconds -x -d 'With replan: seconds a changed GPU is out (81)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l create-seconds -x -d 'Dynamic: seconds to create an instance (queue: 1.5, else 0)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l keep-idle -x -d 'Dynamic: keep an instance whose pod ended this long for reuse'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l wait-target -x -a 'p50= p95= p99= max=' -d 'With --queue: a wait percentile\'s most (p99=10m)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l json -d 'One JSON object on stdout'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l plot -r -F -a - -d 'Write use over time per policy as an SVG (- for stdout)'
complete -c migplan -n '__fish_seen_subcommand_from simulate' -l plot-metric -x -a 'slices gpus' -d 'What --plot draws'

complete -c migplan -n '__fish_seen_subcommand_from place; and __migplan_not_option' -a '(__migplan_items)' -d profile
complete -c migplan -n '__fish_seen_subcommand_from place' -l current -r -F -a - -d 'The fleet now: state file, kubectl nodes or nvidia-smi listing (- for stdin)'
complete -c migplan -n '__fish_seen_subcommand_from place' -l mig-config -r -F -d 'With kubectl --current: the mig-parted config'
complete -c migplan -n '__fish_seen_subcommand_from place' -s g -l gpu -x -a '(__migplan_gpus)' -d '--current is an nvidia-smi mig -lgi listing of this model'
complete -c migplan -n '__fish_seen_subcommand_from place' -l policy -x -a 'spread-first-fit spread-best-fit pack-first-fit pack-best-fit' -d 'Policy to answer (repeatable)'
complete -c migplan -n '__fish_seen_subcommand_from place' -l alternatives -x -d 'Places listed after each choice (default 3)'
complete -c migplan -n '__fish_seen_subcommand_from place' -l allow-moves -x -d 'Where it fits nowhere, the fewest moves (at most K) that make room'
complete -c migplan -n '__fish_seen_subcommand_from place' -l json -d 'One JSON object on stdout'
complete -c migplan -n '__fish_seen_subcommand_from place' -l emit -x -a 'nvidia-smi' -d 'Write the script creating the choice'
