/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim: the RAN transparent containers of the N2 handover, as a gNB builds them. The core
 * relays them untouched (TS 38.413 9.3.1.29-9.3.1.31: "transparent to the 5GC"), so they are
 * the gNBs' business; tshark decodes them, and the NR RRC messages inside, so they must be
 * valid ASN.1:
 *  - SourceNGRANNode-ToTargetNGRANNode-TransparentContainer (TS 38.413 9.3.1.29, APER):
 *    rRCContainer = TS 38.331 11.2.2 HandoverPreparationInformation (UPER), the PDU session
 *    resource information (QoS flows with DL forwarding proposed, DRB 1 -> flow), the target
 *    cell and the UE history (the source cell);
 *  - TargetNGRANNode-ToSourceNGRANNode-TransparentContainer (9.3.1.30): rRCContainer = the
 *    HandoverCommand (TS 38.331 11.2.2) around an RRCReconfiguration;
 *  - RANStatusTransfer-TransparentContainer (9.3.1.31): DRB 1's UL and DL COUNT (18-bit SN).
 * The HandoverPreparationInformation carries the AS context's ReestablishmentInfo (TS 38.331
 * 11.2.2: source PCI, target cell short MAC-I): the simulator puts its UE index there (PCI =
 * index >> 16, short MAC-I = index & 0xffff) so that the target finds the UE it simulates;
 * ransim has no RRC keys to compute a real short MAC-I. Encoders write into caller buffers.
 */
#include <errno.h>
#include <string.h>

#include "common/aper/aper.h"
#include "rs_int.h"

#define MAX_PDU_SESSIONS 256     /* maxnoofPDUSessions */
#define MAX_QOS_FLOWS 64         /* maxnoofQosFlows */
#define MAX_DRBS 32              /* maxnoofDRBs */
#define MAX_CELLS_HISTORY 16     /* maxnoofCellsinUEHistoryInfo */
#define RRC_MAX_RAT_CAPS 8       /* TS 38.331 maxRAT-Capabilities */
#define RRC_PCI_MAX 1007         /* PhysCellId INTEGER (0..1007) */

/* UPER bits of TS 38.331 11.2.2 HandoverPreparationInformation with an empty UE capability
 * list and as-Context { reestablishmentInfo { sourcePhysCellId, targetCellShortMAC-I } }. */
static int rrc_ho_prep_info(uint32_t ue_idx, uint8_t *out, size_t cap)
{
	struct aper_w w;

	if ((ue_idx >> 16) > RRC_PCI_MAX)
		return -ERANGE;
	aper_w_init(&w, out, cap);
	aper_put_bits(&w, 0, 1);             /* criticalExtensions: c1 */
	aper_put_bits(&w, 0, 2);             /* c1: handoverPreparationInformation */
	aper_put_bits(&w, 0x2, 4);           /* sourceConfig, rrm-Config absent; as-Context; no nCE */
	aper_put_bits(&w, 0, 4);             /* ue-CapabilityRAT-List SIZE (0..8): empty */
	aper_put_bits(&w, 0, 1);             /* AS-Context: no extension additions */
	aper_put_bits(&w, 0x2, 2);           /* reestablishmentInfo present, configRestrictInfo absent */
	aper_put_bits(&w, 0, 1);             /* additionalReestabInfoList absent */
	aper_put_bits(&w, ue_idx >> 16, 10); /* sourcePhysCellId */
	aper_put_bits(&w, ue_idx & 0xffff, 16); /* targetCellShortMAC-I */
	return aper_w_len(&w);
}

/* The UE index of rrc_ho_prep_info's encoding, or -EBADMSG. */
static int rrc_ho_prep_ue(const uint8_t *p, size_t n)
{
	struct aper_r r;
	uint64_t v[10];

	aper_r_init(&r, p, n);
	aper_get_bits(&r, 1, &v[0]);
	aper_get_bits(&r, 2, &v[1]);
	aper_get_bits(&r, 4, &v[2]);
	aper_get_bits(&r, 4, &v[3]);
	if (r.err || v[0] || v[1] || v[2] != 0x2 || v[3] > RRC_MAX_RAT_CAPS || v[3])
		return -EBADMSG;
	aper_get_bits(&r, 1, &v[4]);
	aper_get_bits(&r, 2, &v[5]);
	aper_get_bits(&r, 1, &v[6]);
	aper_get_bits(&r, 10, &v[7]);
	aper_get_bits(&r, 16, &v[8]);
	if (r.err || v[4] || !(v[5] & 0x2) || v[6] || v[7] > RRC_PCI_MAX)
		return -EBADMSG;
	return (int)(v[7] << 16 | v[8]);
}

/* NGRAN-CGI: nR-CGI { pLMNIdentity, nRCellIdentity } (9.3.1.73). */
static void put_ngran_cgi(struct aper_w *w, const uint8_t plmn[3], uint64_t cell)
{
	aper_put_choice(w, 3, false, 0);
	aper_put_seq(w, true, 1, 0);
	aper_put_octets(w, 3, 3, false, plmn, 3);
	aper_put_bits_fixed(w, 36, false, cell);
}

/* pDUSessionResourceInformationList: one session, one QoS flow (DL forwarding proposed when
 * fwd, TS 38.413 8.4.1.2), DRB 1 carrying it. */
static void put_pdu_info(struct aper_w *w, uint8_t psi, uint8_t qfi, bool fwd)
{
	aper_put_count(w, 1, MAX_PDU_SESSIONS, 1);
	aper_put_seq(w, true, 2, 0x1);           /* dRBsToQosFlowsMappingList present */
	aper_put_cint(w, 0, 255, false, psi);
	aper_put_count(w, 1, MAX_QOS_FLOWS, 1);
	aper_put_seq(w, true, 2, fwd ? 0x1 : 0); /* QosFlowInformationItem: dLForwarding */
	aper_put_cint(w, 0, 63, true, qfi);
	if (fwd)
		aper_put_enum(w, 1, true, 0);    /* dl-forwarding-proposed */
	aper_put_count(w, 1, MAX_DRBS, 1);
	aper_put_seq(w, true, 1, 0);             /* DRBsToQosFlowsMappingItem */
	aper_put_cint(w, 1, 32, true, 1);        /* DRB-ID 1 */
	aper_put_count(w, 1, MAX_QOS_FLOWS, 1);
	aper_put_seq(w, true, 2, 0);             /* AssociatedQosFlowItem */
	aper_put_cint(w, 0, 63, true, qfi);
}

int rs_enc_s2t_container(const struct rs_s2t *s, uint8_t *out, size_t cap)
{
	uint8_t rrc[16];
	struct aper_w w;
	int n = rrc_ho_prep_info(s->ue_idx, rrc, sizeof(rrc));

	if (n < 0)
		return n;
	aper_w_init(&w, out, cap);
	aper_put_seq(&w, true, 4, 0x1);          /* pDUSessionResourceInformationList only */
	aper_put_octets(&w, 0, APER_UNBOUNDED, false, rrc, (size_t)n);
	put_pdu_info(&w, s->psi, s->qfi, s->dl_forwarding);
	put_ngran_cgi(&w, s->plmn, s->target_cell);
	aper_put_count(&w, 1, MAX_CELLS_HISTORY, 1);
	aper_put_seq(&w, true, 1, 0);            /* LastVisitedCellItem */
	aper_put_choice(&w, 5, false, 0);        /* nGRANCell */
	aper_put_seq(&w, true, 3, 0);            /* LastVisitedNGRANCellInformation */
	put_ngran_cgi(&w, s->plmn, s->source_cell);
	aper_put_seq(&w, true, 1, 0);            /* CellType */
	aper_put_enum(&w, 4, true, 1);           /* cellSize: small */
	aper_put_cint(&w, 0, 4095, false, s->time_in_cell_s > 4095 ? 4095 : s->time_in_cell_s);
	return aper_w_len(&w);
}

int rs_dec_s2t_ue(const uint8_t *p, size_t n)
{
	struct aper_r r;
	uint32_t mask;
	const uint8_t *rrc;
	size_t rlen;
	bool ext;

	aper_r_init(&r, p, n);
	aper_get_seq(&r, true, 4, &ext, &mask);
	aper_get_octets(&r, 0, APER_UNBOUNDED, false, &rrc, &rlen);
	if (r.err)
		return r.err;
	return rrc_ho_prep_ue(rrc, rlen);
}

int rs_enc_t2s_container(uint8_t transaction, uint8_t *out, size_t cap)
{
	uint8_t rrc[8];
	struct aper_w w;
	int n;

	/* TS 38.331 HandoverCommand (UPER): c1, handoverCommand, no nonCriticalExtension, and
	 * handoverCommandMessage = RRCReconfiguration { rrc-TransactionIdentifier,
	 * rrcReconfiguration with no optional field } */
	aper_w_init(&w, rrc, sizeof(rrc));
	aper_put_bits(&w, 0, 1);
	aper_put_bits(&w, 0, 2);
	aper_put_bits(&w, 0, 1);
	aper_put_bits(&w, 1, 8);                 /* OCTET STRING length: 1 */
	aper_put_bits(&w, transaction & 3, 2);
	aper_put_bits(&w, 0, 1);                 /* criticalExtensions: rrcReconfiguration */
	aper_put_bits(&w, 0, 5);                 /* no optional IEs */
	n = aper_w_len(&w);
	if (n < 0)
		return n;
	aper_w_init(&w, out, cap);
	aper_put_seq(&w, true, 1, 0);
	aper_put_octets(&w, 0, APER_UNBOUNDED, false, rrc, (size_t)n);
	return aper_w_len(&w);
}

/* COUNTValueForPDCP-SN18: the PDCP SN is the COUNT's 18 low bits, the HFN the rest. */
static void put_count18(struct aper_w *w, uint32_t count)
{
	aper_put_seq(w, true, 1, 0);
	aper_put_cint(w, 0, 262143, false, count & 0x3ffff);
	aper_put_cint(w, 0, 16383, false, (count >> 18) & 0x3fff);
}

int rs_enc_ran_status(uint32_t ul_count, uint32_t dl_count, uint8_t *out, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, out, cap);
	aper_put_seq(&w, true, 1, 0);
	aper_put_count(&w, 1, MAX_DRBS, 1);
	aper_put_seq(&w, true, 1, 0);            /* DRBsSubjectToStatusTransferItem */
	aper_put_cint(&w, 1, 32, true, 1);       /* DRB 1 */
	aper_put_choice(&w, 3, false, 1);        /* dRBStatusUL18 */
	aper_put_seq(&w, true, 2, 0);            /* no receive status bitmap */
	put_count18(&w, ul_count);
	aper_put_choice(&w, 3, false, 1);        /* dRBStatusDL18 */
	aper_put_seq(&w, true, 1, 0);
	put_count18(&w, dl_count);
	return aper_w_len(&w);
}
