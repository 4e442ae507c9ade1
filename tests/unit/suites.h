/* suites.h - one Check suite per tested file of daemon/, by layer. */
#ifndef SUITES_H
#define SUITES_H

#include <check.h>

Suite *features_suite(void);
Suite *cpuset_suite(void);
Suite *cpulist_suite(void);
Suite *topo_suite(void);
Suite *idlemask_suite(void);
Suite *prio_suite(void);
Suite *scan_suite(void);
Suite *place_suite(void);
Suite *plan_suite(void);
Suite *churn_suite(void);
Suite *conflict_suite(void);
Suite *wakedom_suite(void);
Suite *coregrant_suite(void);
Suite *policy_suite(void);
Suite *policy_xml_suite(void);
Suite *nova_xml_suite(void);
Suite *choose_suite(void);
Suite *domxml_suite(void);
Suite *schedfeat_suite(void);
Suite *smallfile_suite(void);
Suite *peer_suite(void);
Suite *isolation_suite(void);
Suite *qemu_suite(void);
Suite *cputune_suite(void);
Suite *scx_suite(void);
Suite *scxfeed_suite(void);
Suite *procevents_suite(void);
Suite *scxwake_suite(void);
Suite *wakecheck_suite(void);
Suite *command_suite(void);
Suite *tick_suite(void);
Suite *load_suite(void);
Suite *inventory_suite(void);
Suite *answers_suite(void);
Suite *schedext_suite(void);
Suite *kernelmode_suite(void);
Suite *sampler_suite(void);
Suite *hwtopo_suite(void);
Suite *server_suite(void);
Suite *atomicfile_suite(void);
Suite *procstat_suite(void);
Suite *privs_suite(void);
Suite *privileges_suite(void);
Suite *virt_suite(void);
Suite *virt_msg_suite(void);

#endif /* SUITES_H */
