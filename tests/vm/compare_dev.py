#!/usr/bin/env python3
"""Compare `ibtick -j -d dev show` field by field with the ground truth of
`rdma -j link show` and `ibv_devinfo -v` (rdma-core tools nobody here wrote).

usage: compare_dev.py IBTICK_BINARY

Prints one "ok"/"not ok" line per field compared and exits 1 on any mismatch
or when the two views do not list the same devices and ports.
"""
import ipaddress
import json
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def parse_devinfo(text):
    """ibv_devinfo -v output -> {dev: {fields..., 'ports': {num: {...}}}}"""
    devs, dev, port = {}, None, None
    dev_keys = ("fw_ver", "node_guid", "sys_image_guid", "phys_port_cnt")
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"hca_id:\s+(\S+)", s)
        if m:
            dev = devs.setdefault(m.group(1), {"ports": {}})
            port = None
            continue
        if dev is None:
            continue
        m = re.match(r"port:\s+(\d+)$", s)
        if m:
            port = dev["ports"].setdefault(int(m.group(1)), {})
            continue
        m = re.match(r"(\w+):\s+(.*)$", s)
        if m and port is None and m.group(1) in dev_keys:
            dev[m.group(1)] = m.group(2).strip()
        elif m and port is not None:
            port.setdefault(m.group(1), m.group(2).strip())
        m = re.match(r"GID\[\s*0\]:\s+([0-9a-fA-F:]+)", s)
        if m and port is not None:
            port["gid0"] = m.group(1)
    return devs


class Checker:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
            print(f"ok - {what}: {got}")
        else:
            self.failed += 1
            print(f"not ok - {what}: ibtick says {got!r}, ground truth {want!r}")


def leading_int(s):
    m = re.match(r"(\d+)", s or "")
    return int(m.group(1)) if m else None


def main():
    ibtick = sys.argv[1]
    mine = json.loads(run(ibtick, "-j", "-d", "dev", "show"))
    links = json.loads(run("rdma", "-j", "link", "show"))
    devinfo = parse_devinfo(run("ibv_devinfo", "-v"))
    c = Checker()

    # the same (device, port) pairs on both sides
    c.eq("device/port set",
         sorted((d["ifname"], p["port"]) for d in mine for p in d["ports"]),
         sorted((l["ifname"], l["port"]) for l in links))

    by_link = {(l["ifname"], l["port"]): l for l in links}
    for d in mine:
        name = d["ifname"]
        info = devinfo.get(name, {"ports": {}})
        c.eq(f"{name} fw_ver", d.get("fw", ""), info.get("fw_ver", ""))
        c.eq(f"{name} node_guid", d.get("node_guid"), info.get("node_guid"))
        c.eq(f"{name} sys_image_guid", d.get("sys_image_guid"),
             info.get("sys_image_guid"))
        c.eq(f"{name} num_ports", d.get("num_ports"),
             leading_int(info.get("phys_port_cnt")))
        c.eq(f"{name} num_ports = ports listed", d.get("num_ports"),
             len(d["ports"]))
        for p in d["ports"]:
            num = p["port"]
            what = f"{name}/{num}"
            link = by_link.get((name, num), {})
            pi = info["ports"].get(num, {})
            c.eq(f"{what} dev index (rdma)", d["ifindex"], link.get("ifindex"))
            c.eq(f"{what} state (rdma)", p.get("state"), link.get("state"))
            c.eq(f"{what} physical_state (rdma)", p.get("physical_state"),
                 link.get("physical_state"))
            c.eq(f"{what} netdev (rdma)", p.get("netdev"), link.get("netdev"))
            c.eq(f"{what} netdev_index (rdma)", p.get("netdev_index"),
                 link.get("netdev_index"))
            c.eq(f"{what} state (ibv_devinfo)", "PORT_" + p.get("state", ""),
                 (pi.get("state") or "").split()[0])
            c.eq(f"{what} phys_state (ibv_devinfo)", p.get("physical_state"),
                 (pi.get("phys_state") or "").split(" ")[0])
            c.eq(f"{what} active_mtu", p.get("active_mtu"),
                 leading_int(pi.get("active_mtu")))
            c.eq(f"{what} max_mtu", p.get("max_mtu"),
                 leading_int(pi.get("max_mtu")))
            c.eq(f"{what} link_layer", p.get("link_layer"), pi.get("link_layer"))
            c.eq(f"{what} width", p.get("width"),
                 leading_int(pi.get("active_width")))
            sp = re.match(r"([\d.]+) Gbps", pi.get("active_speed", ""))
            c.eq(f"{what} speed", p.get("speed_mbps"),
                 round(float(sp.group(1)) * 1000) if sp else None)
            gid = p.get("gid0")
            want_gid = pi.get("gid0")
            c.eq(f"{what} gid0",
                 str(ipaddress.IPv6Address(gid)) if gid else None,
                 str(ipaddress.IPv6Address(want_gid)) if want_gid else None)
            if p.get("link_layer") == "InfiniBand":
                c.eq(f"{what} lid", p.get("lid"), leading_int(pi.get("port_lid")))
                c.eq(f"{what} sm_lid", p.get("sm_lid"),
                     leading_int(pi.get("sm_lid")))
            else:
                c.eq(f"{what} no LID on RoCE", "lid" in p, False)
    print(f"compare_dev: {c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
