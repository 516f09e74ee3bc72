/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibtick doctor: the checks as pure functions.
 *
 * doctor.c gathers what the host shows (sysfs, /proc, the ibtick netlink
 * dumps) into the plain structures below, all of it in one struct doc_host;
 * doc_run() then decides which checks apply and in what order, and each
 * doc_check_*() turns one observation into a result: PASS, WARN or FAIL,
 * what was seen and, unless it passed, the fix.  Nothing here does I/O, so
 * the unit tests drive every decision with made-up values.
 */
#ifndef IBTICK_DOCTOR_CHECKS_H
#define IBTICK_DOCTOR_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum doc_status {
	DOC_PASS,
	DOC_WARN,
	DOC_FAIL,
};

#define DOC_SUBJECT_LEN	96
#define DOC_SEEN_LEN	640
#define DOC_FIX_LEN	512

struct doc_result {
	enum doc_status	status;
	const char	*check;			/* static: "port-state" */
	char		subject[DOC_SUBJECT_LEN]; /* "mlx5_0/1", "cpu3", feed */
	char		seen[DOC_SEEN_LEN];
	char		fix[DOC_FIX_LEN];	/* "" when it passed */
};

/* "PASS", "WARN", "FAIL". */
const char *doc_status_name(enum doc_status s);

struct doc_tally {
	unsigned int	pass, warn, fail;
};

void doc_tally_add(struct doc_tally *t, const struct doc_result *r);
/* 1 when anything failed, else 0 (the command's exit status). */
int doc_tally_exit(const struct doc_tally *t);

/* Appends to a NUL-terminated @buf of @len bytes; output is cut to fit. */
void doc_appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- CPU sets ("2,4-7", the kernel's cpulist format) ---------------- */

#define DOC_MAX_CPUS	4096

struct doc_cpuset {
	uint64_t	bits[DOC_MAX_CPUS / 64];
};

void doc_cpuset_zero(struct doc_cpuset *s);
void doc_cpuset_set(struct doc_cpuset *s, unsigned int cpu);
bool doc_cpuset_has(const struct doc_cpuset *s, unsigned int cpu);
unsigned int doc_cpuset_count(const struct doc_cpuset *s);
/* @dst = @a | @b, @dst = @a & ~@b (any may alias). */
void doc_cpuset_or(struct doc_cpuset *dst, const struct doc_cpuset *a,
		   const struct doc_cpuset *b);
void doc_cpuset_andnot(struct doc_cpuset *dst, const struct doc_cpuset *a,
		       const struct doc_cpuset *b);
/*
 * Parses "0", "2,4-7", "0-3,8-11\n" (surrounding blanks allowed; an empty
 * list is an empty set).  -1 on a malformed list, a reversed range or a
 * CPU >= DOC_MAX_CPUS.
 */
int doc_cpuset_parse(const char *s, struct doc_cpuset *set);
/* The set as a cpulist ("2,4-7"; "none" when empty). */
char *doc_cpuset_format(const struct doc_cpuset *s, char *buf, size_t len);

/* ---- the module -------------------------------------------------------- */

struct doc_module {
	bool		loaded;		/* /sys/module/ibtick exists */
	bool		family;		/* generic netlink family resolved */
	int		family_id;
	char		version[32];	/* /sys/module/ibtick/version, "" */
	const char	*cli_version;	/* this program's version */
	char		error[128];	/* the netlink socket failed: why */
	/* when not loaded, why it may not load: */
	char		kernel[64];	/* uname -r, "" not looked at */
	bool		ko_found;	/* an ibtick.ko in /lib/modules/KERNEL */
	bool		ofa_kernel;	/* /usr/src/ofa_kernel/KERNEL: MLNX_OFED */
	char		load_error[192]; /* last kernel log line of a failed load */
};

/*
 * Loaded and the family registered: PASS (WARN when its version is not
 * this program's).  Not loaded: FAIL, the fix chosen from the kernel log
 * (symbol version mismatch: built against the other ib_core, inbox or
 * MLNX_OFED; unknown symbols) and from whether a module is installed.
 */
enum doc_status doc_check_module(const struct doc_module *m,
				 struct doc_result *r);

/* What the kernel's dumps show against what sysfs shows. */
struct doc_kernel_view {
	bool		dev_dump_ok;
	bool		feed_dump_ok;
	unsigned int	n_devs;		/* devices in the DEV_GET dump */
	unsigned int	n_feeds;
	char		missing[256];	/* sysfs IB/RoCE devices not in it */
};

enum doc_status doc_check_kernel_view(const struct doc_kernel_view *v,
				      struct doc_result *r);

/* ---- ports ------------------------------------------------------------- */

#define DOC_NAME_LEN	64	/* IB_DEVICE_NAME_MAX */
#define DOC_IFNAME_LEN	16	/* IFNAMSIZ */
#define DOC_MC_ROUTES	16	/* multicast routes kept per netdev */

struct doc_netdev {
	char		name[DOC_IFNAME_LEN];	/* "" when the port has none */
	bool		present;		/* /sys/class/net/NAME exists */
	char		operstate[16];		/* "up", "down", "unknown" */
	bool		flags_known;
	unsigned int	flags;			/* IFF_* */
	unsigned int	mtu;			/* 0 unknown */
	unsigned int	ifindex;		/* 0 unknown */
	char		mode[16];		/* IPoIB: datagram/connected */
	int		n_ipv4;			/* IPv4 addresses, -1 unread */
	char		ipv4[24];		/* the first: "10.0.0.1/24" */
	/* routes on it into 224.0.0.0/4, prefix 4 or longer; -1 unread */
	int		n_mc_route;
	struct doc_mc_route {
		uint32_t	net;		/* host order: 0xe0000000 */
		int		prefix;		/* 4..32 */
	} mc_route[DOC_MC_ROUTES];		/* the first n_mc_route of them */
	/* RoCE: what DCB shows (dcb pfc/app, sysfs ecn/), information */
	bool		dcb_found;		/* dcb(8) is installed */
	bool		pfc_known;		/* dcb pfc show answered */
	char		pfc_on[24];		/* priorities with PFC: "3,4" */
	char		dcb_error[64];		/* its complaint, "" */
	char		trust[8];		/* "dscp", "pcp", "" unknown */
	int		ecn_np;			/* priority mask, -1 no sysfs */
	int		ecn_rp;
};

struct doc_port {
	char		dev[DOC_NAME_LEN];
	unsigned int	port;
	int		state;		/* enum ibtick_port_state, -1 unread */
	int		phys_state;	/* enum ibtick_port_phys_state, -1 */
	int		link_layer;	/* enum ibtick_link_layer */
	bool		lid_known;
	uint32_t	lid;
	uint32_t	sm_lid;
	uint32_t	active_mtu;	/* bytes, 0: not known (netlink only) */
	uint32_t	max_mtu;
	struct doc_netdev nd;		/* RoCE: gid_attrs/ndevs/0; IB: IPoIB */
};

/* State ACTIVE and physical state LinkUp, else FAIL with the likely fix. */
enum doc_status doc_check_port_state(const struct doc_port *p,
				     struct doc_result *r);
/* The port reports InfiniBand or Ethernet. */
enum doc_status doc_check_link_layer(const struct doc_port *p,
				     struct doc_result *r);
/* InfiniBand: an SM has swept the port (SM LID != 0). */
enum doc_status doc_check_sm(const struct doc_port *p, struct doc_result *r);
/* InfiniBand: the port's LID is a unicast LID (1..0xbfff). */
enum doc_status doc_check_lid(const struct doc_port *p, struct doc_result *r);
/* RoCE: the Ethernet netdev behind GID 0 exists and is up. */
enum doc_status doc_check_roce_netdev(const struct doc_port *p,
				      struct doc_result *r);
/*
 * InfiniBand: the IPoIB netdev exists (WARN without one); its mode and MTU
 * are information (PASS), with what each mode is good for.
 */
enum doc_status doc_check_ipoib(const struct doc_port *p,
				struct doc_result *r);
/*
 * The port's netdev has an IPv4 address: feeds join their group through
 * rdma_cm, which finds the port by it.  None: FAIL when @feeds feeds use
 * the port, else WARN; the fix is the ip command.
 */
enum doc_status doc_check_ipv4(const struct doc_port *p, unsigned int feeds,
			       struct doc_result *r);
/*
 * A line of /proc/net/route: 1 when it is a route on interface @ifname
 * into 224.0.0.0/4 with a prefix of 4 or longer, its destination then in
 * @rt (host order); 0 for any other line (the header included).
 */
int doc_route_line_mc(const char *line, const char *ifname,
		      struct doc_mc_route *rt);
struct doc_feed;
/*
 * Soft-RoCE (rxe) ports: each feed on the port has a multicast route on
 * the port's netdev that covers its group.  rxe looks up the route of
 * every packet it sends, and to a group with no route of its own there
 * (one of prefix 4 or longer) the kernel builds one per lookup and frees
 * it through RCU, whose grace periods then preempt spinning readers.  No
 * multicast route at all, or a feed (of @feeds, @n_feeds of them, any
 * port's) whose group none covers: WARN, with the ip route command.  With
 * more routes than the netdev keeps (DOC_MC_ROUTES) the feeds are not
 * compared.  Hardware builds the headers itself: the check is for software
 * devices only.
 */
enum doc_status doc_check_mc_route(const struct doc_port *p,
				   const struct doc_feed *feeds, size_t n_feeds,
				   struct doc_result *r);
/*
 * RoCE, information only (PASS): PFC per priority and the trust mode as
 * dcb(8) shows them, ECN (notification and reaction points) as the
 * driver's sysfs ecn/ directory shows it.
 */
enum doc_status doc_check_roce_qos(const struct doc_port *p,
				   struct doc_result *r);
/* Active MTU against the port's maximum (known from netlink only). */
enum doc_status doc_check_port_mtu(const struct doc_port *p,
				   struct doc_result *r);
/*
 * IB/RoCE ports with state ACTIVE: none FAIL, one PASS, more WARN (a bind
 * with sibt_ifindex 0 is refused; name the netdev).
 */
enum doc_status doc_check_active_ports(const struct doc_port *ports,
				       size_t n, struct doc_result *r);

/*
 * IPoIB: does the hardware address (sysfs "address", 20 bytes as hex pairs
 * separated by ':') carry the port GID (sysfs gids/0, eight groups of four
 * hex digits)?  How the kernel side picks a port's IPoIB netdev.
 */
bool doc_ipoib_addr_has_gid(const char *addr, const char *gid);

/* Leading number of a sysfs "4: ACTIVE" line; -1 when there is none. */
int doc_sysfs_enum(const char *s);

/* ---- the device -------------------------------------------------------- */

struct doc_fw {
	char		dev[DOC_NAME_LEN];
	char		fw_ver[64];	/* sysfs fw_ver, "" none */
	char		driver[64];	/* device/driver, "rxe", "" unknown */
	char		kernel[64];	/* uname -r */
	bool		ofed_found;	/* ofed_info exists */
	bool		ofed_timeout;	/* it did not finish in time */
	char		ofed[128];	/* its -s output, "" none or failed */
};

/* Informational: always PASS. */
enum doc_status doc_check_firmware(const struct doc_fw *f,
				   struct doc_result *r);

/* iWARP devices (node type RNIC) are not usable: WARN. */
enum doc_status doc_check_node_type(const char *dev, int node_type,
				    struct doc_result *r);

/* ---- port error counters ---------------------------------------------- */

/* The error counters of ports/N/counters/ (the PMA set), NULL-terminated. */
extern const char *const doc_pma_error_counters[];
/* Is a ports/N/counters/ file one of them? */
bool doc_pma_counter_is_error(const char *name);
/* Is a ports/N/hw_counters/ file an error counter (not traffic, config)? */
bool doc_hw_counter_is_error(const char *name);

struct doc_counter {
	char		name[48];
	uint64_t	before;
	uint64_t	after;		/* == before when growth is not checked */
};

struct doc_counters {
	char		dev[DOC_NAME_LEN];
	unsigned int	port;
	double		interval;	/* seconds between the reads */
	bool		growth;		/* read twice (not --fast) */
	const struct doc_counter *c;
	size_t		n;		/* 0: no counters (software device) */
};

/* FAIL when one grew, WARN when one is non-zero, PASS otherwise. */
enum doc_status doc_check_counters(const struct doc_counters *k,
				   struct doc_result *r);

/* ---- CPUs -------------------------------------------------------------- */

#define DOC_CPU_APP	(1U << 0)	/* in --app-cpus */
#define DOC_CPU_POLL	(1U << 1)	/* a busy-poll feed's thread runs here */

struct doc_cpu {
	unsigned int	cpu;
	unsigned int	roles;		/* DOC_CPU_* */
	char		feeds[128];	/* busy-poll feeds on it, "" */
	bool		present;	/* cpuN exists */
	bool		online;
	bool		has_cpufreq;	/* cpufreq/scaling_governor readable */
	char		governor[32];
	/* cpuidle: states enabled whose exit latency is over the bound */
	bool		has_cpuidle;	/* cpuN/cpuidle/state* readable */
	unsigned int	deep_states;
	unsigned int	deep_latency_us; /* the largest of them */
	char		deep_names[64];	/* "C6, C8" */
	/* the kernel command line's isolation, from cpu/isolated, nohz_full */
	bool		isolated;
	bool		nohz_full;
	/* other devices' interrupts allowed on it (not the RDMA devices') */
	bool		irqs_read;	/* /proc/interrupts was read */
	unsigned int	n_other_irqs;
	char		other_irqs[160]; /* "24 (nvme0q1), 31 (eth0-rx-1)" */
	char		other_irq_nums[64]; /* "24 31" for the fix */
};

/* Idle states with a longer exit latency than this are "deep" (us). */
#define DOC_DEEP_IDLE_US	10

/* WARN unless "performance"; no cpufreq at all is PASS. */
/*
 * For t_max: on an app or busy-poll CPU, deep idle states enabled (the
 * exit latency lands on the next tick) and a CPU neither in isolcpus nor
 * in nohz_full (the scheduler tick and other tasks interrupt it) are
 * WARNs, with the kernel command line or cpupower fix.
 */
enum doc_status doc_check_cpu_latency(const struct doc_cpu *c,
				      struct doc_result *r);
/*
 * On an app or busy-poll CPU, interrupts of other devices whose affinity
 * allows that CPU: WARN, naming them, with how to move them off it.
 */
enum doc_status doc_check_cpu_irqs(const struct doc_cpu *c,
				   struct doc_result *r);
enum doc_status doc_check_governor(const struct doc_cpu *c,
				   struct doc_result *r);
/* Nothing to check: no --app-cpus and no busy-poll feed pinned. */
enum doc_status doc_check_no_cpus(struct doc_result *r);

/* ---- interrupts -------------------------------------------------------- */

/*
 * A /proc/interrupts line: its IRQ number and the last word (the action
 * name).  -1 for lines that are not numbered IRQs (the CPU header, NMI...).
 */
int doc_irq_parse_line(const char *line, unsigned int *irq, char *name,
		       size_t len);
/*
 * Does @line name the device @dev or the bus device @pci (either may be
 * NULL or "")?  A name must not run on into more digits: "mlx5_1" does not
 * match "mlx5_10".
 */
bool doc_irq_line_names(const char *line, const char *dev, const char *pci);
/*
 * The completion vector an IRQ action name stands for: mlx5's
 * "mlx5_comp3@pci:0000:03:00.0" -> 3, mlx4's "mlx4-3@0000:03:00.0" -> 3;
 * -1 for others ("mlx5_async0@...", "mlx4-async@...").
 */
int doc_irq_vector(const char *name);
/* Is an IRQ action name a completion interrupt (not async, command...)? */
bool doc_irq_is_completion(const char *name);

struct doc_irq {
	unsigned int	irq;
	char		name[64];
	int		vector;		/* doc_irq_vector(), -1 unknown */
	struct doc_cpuset cpus;		/* effective (or allowed) affinity */
};

struct doc_irq_view {
	char		dev[DOC_NAME_LEN];
	bool		software;	/* rxe, siw: no interrupts of its own */
	unsigned int	n_named;	/* /proc/interrupts lines naming it */
	const struct doc_irq *irqs;	/* its completion interrupts */
	size_t		n;
	const struct doc_cpuset *app;	/* --app-cpus */
	const struct doc_cpuset *poll;	/* busy-poll threads' CPUs */
	const struct doc_cpuset *online;
	/* completion vectors of IRQ-mode feeds on this device */
	const int	*feed_vectors;
	size_t		n_feed_vectors;
};

/*
 * WARN when a completion IRQ may run on a busy-poll CPU, or on an app CPU
 * while no IRQ-mode feed of this device uses that vector (meant for
 * another); PASS when none does or when the device has none (software).
 */
enum doc_status doc_check_irqs(const struct doc_irq_view *v,
			       struct doc_result *r);

/* ---- feeds ------------------------------------------------------------- */

#define DOC_FEED_NAME_LEN 32	/* IBTICK_FEED_NAME_MAX */

struct doc_feed {
	char		name[DOC_FEED_NAME_LEN];
	bool		admin;			/* made by feed add */
	bool		live;
	char		dev[DOC_NAME_LEN];	/* "" when not reported */
	uint32_t	dev_port;
	char		netdev[DOC_IFNAME_LEN];
	uint32_t	group;			/* IPv4, host order; 0: none (arbitrated) */
	uint32_t	slots;
	uint32_t	slot_size;		/* bytes, descriptor included */
	uint32_t	wire_max;		/* bytes, wire header included */
	int		poll_mode;		/* IBTICK_POLL_* */
	int		poll_cpu;		/* -1 any */
	int		comp_vector;		/* -1 not reported */
	uint64_t	rx_ticks;
	uint64_t	readers_lost;
	uint64_t	laps;
	uint64_t	rq_empty;
	uint64_t	gaps;
	uint64_t	gap_ticks;
	uint64_t	truncated;
};

/* No feeds at all: PASS, saying so. */
enum doc_status doc_check_no_feeds(struct doc_result *r);
/* Not live: FAIL (device gone). */
enum doc_status doc_check_feed_live(const struct doc_feed *f,
				    struct doc_result *r);
/* Slot payload against the wire's payload (MTU less the wire header). */
enum doc_status doc_check_feed_mtu(const struct doc_feed *f,
				   struct doc_result *r);
/* Readers lapped (READERS_LOST > 0): WARN. */
enum doc_status doc_check_feed_lapped(const struct doc_feed *f,
				      struct doc_result *r);
/* Receive queue ran empty (RQ_EMPTY > 0): WARN. */
enum doc_status doc_check_feed_rq_empty(const struct doc_feed *f,
					struct doc_result *r);
/* Publisher sequence gaps (GAPS > 0): WARN. */
enum doc_status doc_check_feed_gaps(const struct doc_feed *f,
				    struct doc_result *r);

/* Smallest power-of-two slot size (64..8192) holding @payload bytes. */
uint32_t doc_slot_size_for(uint32_t payload);

/* The CPUs the busy-poll threads of @feeds are pinned to. */
void doc_poll_cpus(const struct doc_feed *feeds, size_t n,
		   struct doc_cpuset *poll);

/* ---- the whole run ----------------------------------------------------- */

/* An RDMA device as sysfs and /proc/interrupts show it. */
struct doc_dev {
	char		name[DOC_NAME_LEN];
	int		node_type;	/* enum ibtick_node_type, -1 unread */
	char		busid[64];	/* device: "0000:03:00.0", "" none */
	bool		software;	/* rxe: no device, no interrupts */
	char		driver[64];
	char		fw_ver[64];
	char		model[64];	/* sysfs hca_type ("MT4123"), "" */
	/* PCIe link of the device, sysfs current_link_* and max_link_* */
	unsigned int	pci_width;	/* lanes, 0 unknown */
	unsigned int	pci_max_width;
	char		pci_speed[32];	/* "8.0 GT/s PCIe", "" unknown */
	char		pci_max_speed[32];
	size_t		first_port;	/* into doc_host.ports */
	size_t		n_ports;
	unsigned int	n_named;	/* /proc/interrupts lines naming it */
	struct doc_irq	*irqs;		/* its completion interrupts */
	size_t		n_irqs;
};

/* iWARP (node type RNIC): no feeds on it, only a node-type line. */
bool doc_dev_is_iwarp(const struct doc_dev *dd);

/*
 * Devices of one model (hca_type) all run the same firmware: a model whose
 * devices report different versions is a WARN naming them.  PASS when
 * no model has two devices, or they agree.
 */
enum doc_status doc_check_fw_consistency(const struct doc_dev *devs, size_t n,
					 struct doc_result *r);

/*
 * The device's PCIe link trained at its capability (width and speed);
 * below it is a WARN, the usual cause of half the expected bandwidth.
 * Only for devices whose link sysfs reports.
 */
enum doc_status doc_check_pcie(const struct doc_dev *dd, struct doc_result *r);

/* Everything doctor.c gathered. */
struct doc_host {
	struct doc_module	mod;
	/* the kernel's dumps, when mod.family */
	bool			dev_dump_ok;
	bool			feed_dump_ok;
	char			(*kdevs)[DOC_NAME_LEN];	/* in the DEV_GET dump */
	size_t			n_kdevs;
	struct doc_feed		*feeds;
	size_t			n_feeds;
	/* sysfs */
	struct doc_dev		*devs;
	size_t			n_devs;
	struct doc_port		*ports;
	size_t			n_ports;
	struct doc_counters	*counters;	/* one per port */
	/* kernel and ofed_info, for the firmware lines (dev fields unset) */
	struct doc_fw		fw;
	/* CPUs: --app-cpus, those online, and the ones that matter */
	struct doc_cpuset	app;
	struct doc_cpuset	online;
	struct doc_cpu		*cpus;		/* app and busy-poll CPUs */
	size_t			n_cpus;
};

/*
 * Every check that applies to @h, in the order they are printed, each
 * result handed to @emit.
 */
void doc_run(const struct doc_host *h,
	     void (*emit)(void *ctx, const struct doc_result *r), void *ctx);

#endif
