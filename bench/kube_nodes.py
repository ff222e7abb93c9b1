#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes `kubectl get nodes -o json` for N H100 nodes, each as a real
node's JSON is: GPU Feature Discovery's labels, annotations, conditions,
addresses, and the status.images list (60 images) that makes most of a
node's bytes. For measuring how `plan --current` reads a cluster's nodes
(bench/README.md, "kubectl's nodes").

usage: kube_nodes.py N > nodes.json
"""
import json
import sys


def node(i):
    name = f"gpu-{i:05d}"
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "p5.48xlarge",
        "topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": "us-east-1a",
        "feature.node.kubernetes.io/cpu-model.vendor_id": "AMD",
        "feature.node.kubernetes.io/kernel-version.full": "6.1.0-18-amd64",
        "nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "54",
        "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0",
        "nvidia.com/gpu.family": "hopper", "nvidia.com/gpu.machine": "p5.48xlarge",
        "nvidia.com/gpu.memory": "81559", "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8",
        "nvidia.com/mig.capable": "true", "nvidia.com/mig.strategy": "mixed",
        "nvidia.com/mig.config": "all-1g.10gb", "nvidia.com/mig.config.state": "success",
        "nvidia.com/mig-1g.10gb.count": "56",
    }
    annotations = {
        "nfd.node.kubernetes.io/feature-labels": ",".join(k for k in labels if "feature" in k),
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": f"i-{i:017x}"}),
    }
    images = [{"names": [f"nvcr.io/nvidia/image-{j}@sha256:{(i * 131 + j) % 10**12:064x}",
                         f"nvcr.io/nvidia/image-{j}:v{j}.0.{i % 7}"],
               "sizeBytes": 100_000_000 + j * 7_919} for j in range(60)]
    conditions = [{"type": t, "status": "False" if t != "Ready" else "True",
                   "lastHeartbeatTime": "2026-12-01T00:00:00Z",
                   "lastTransitionTime": "2026-11-01T00:00:00Z",
                   "reason": f"Kubelet{t}", "message": f"kubelet reports {t} as it should be"}
                  for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")]
    resources = {"cpu": "192", "memory": "2097152Mi", "nvidia.com/gpu": "0",
                 "nvidia.com/mig-1g.10gb": "56", "pods": "110", "ephemeral-storage": "7Ti"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"annotations": annotations, "creationTimestamp": "2026-01-01T00:00:00Z",
                     "labels": labels, "name": name, "resourceVersion": str(100000 + i),
                     "uid": f"{i:08x}-0000-4000-8000-000000000000"},
        "spec": {"providerID": f"aws:///us-east-1a/i-{i:017x}",
                 "taints": [{"effect": "NoSchedule", "key": "nvidia.com/gpu"}]},
        "status": {"addresses": [{"type": "InternalIP", "address": f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"},
                                 {"type": "Hostname", "address": name}],
                   "allocatable": resources, "capacity": resources, "conditions": conditions,
                   "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}, "images": images,
                   "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.13",
                                "kernelVersion": "6.1.0-18-amd64", "kubeletVersion": "v1.31.0",
                                "osImage": "Debian GNU/Linux 12 (bookworm)"}},
    }


def main():
    n = int(sys.argv[1])
    json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
               "items": [node(i) for i in range(n)]}, sys.stdout, indent=4)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
