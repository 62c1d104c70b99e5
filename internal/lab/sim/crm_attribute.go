package sim

// crm_attribute follows pacemaker's crm_attribute(8): the real
// crm_attribute on the lab cluster's CIB (pacemaker.go): cluster
// properties (--type crm_config) and node attributes such as standby
// (--node N --name standby --update on), queried or changed, a change
// checked and settled as cibadmin's changes are.

func crmAttribute(e *Env, args []string) int { return e.cibChange("crm_attribute", args) }
