# Feeds the Go renderer's specs and device cases to Ceph's own classes
# (python3-ceph-common, Pacific; or another release's on PYTHONPATH): ServiceSpec.from_json(...).validate(),
# to_json() for the canonical form, and DriveSelection for the devices an
# OSD spec takes. Reads JSON on stdin, prints JSON on stdout.
import inspect
import json
import sys

from ceph.deployment.service_spec import ServiceSpec
from ceph.deployment.inventory import Device
from ceph.deployment.drive_selection.selector import DriveSelection


# Pacific's Device takes ceph_device; later releases renamed it
# ceph_device_lvm.
CEPH_DEVICE = ("ceph_device" if "ceph_device" in inspect.signature(Device.__init__).parameters
               else "ceph_device_lvm")


def main():
    req = json.load(sys.stdin)
    out = {"specs": [], "cases": []}
    for s in req.get("specs") or []:
        try:
            spec = ServiceSpec.from_json(json.loads(json.dumps(s)))
            spec.validate()
            out["specs"].append({"to_json": json.loads(json.dumps(spec.to_json()))})
        except Exception as e:  # report Ceph's refusal to the Go side
            out["specs"].append({"error": "%s: %s" % (type(e).__name__, e)})
    for c in req.get("cases") or []:
        try:
            spec = ServiceSpec.from_json(c["spec"])
            spec.validate()
            disks = [Device(d["path"], sys_api=d["sys_api"], available=d["available"],
                            rejected_reasons=d["rejected_reasons"], **{CEPH_DEVICE: d["ceph_device"] or None})
                     for d in c["devices"]]
            sel = DriveSelection(spec, disks, existing_daemons=c.get("existing_daemons", 0))
            out["cases"].append({"data": [d.path for d in sel.data_devices()],
                                 "db": [d.path for d in sel.db_devices()]})
        except Exception as e:
            out["cases"].append({"error": "%s: %s" % (type(e).__name__, e)})
    json.dump(out, sys.stdout)


main()
