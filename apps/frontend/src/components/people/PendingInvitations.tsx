import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { RemoveDialog } from "../settings/RemoveDialog.tsx";
import {
  Badge,
  Card,
  EmptyState,
  IconButton,
  InboxIcon,
  QueryView,
  RelativeTime,
  retryWithoutAnswer,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  Td,
  Th,
  Tr,
  TrashIcon,
} from "../ui/index.ts";
import { type Invitation, roleName } from "./model.ts";

/** Invitations not yet accepted, each with a way to revoke it. */
export function PendingInvitations() {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.users.invitations.queryOptions(), retry: retryWithoutAnswer });
  const [revoking, setRevoking] = useState<Invitation | null>(null);

  return (
    <Card title={t("invite.pending")} flush>
      <QueryView query={query} errorTitle={t("invite.loadFailed")} padded>
        {({ invitations }) =>
          invitations.length === 0 ? (
            <div className="p-4">
              <EmptyState icon={<InboxIcon className="size-6" />} title={t("invite.noPending")} />
            </div>
          ) : (
            <TableContainer>
              <Table aria-label={t("invite.pending")}>
                <TableHead>
                  <tr>
                    <Th>{t("invite.email")}</Th>
                    <Th>{t("invite.role")}</Th>
                    <Th>{t("invite.invitedBy")}</Th>
                    <Th>{t("invite.expiresAt")}</Th>
                    <Th>
                      <span className="sr-only">{t("people.actions")}</span>
                    </Th>
                  </tr>
                </TableHead>
                <TableBody>
                  {invitations.map((invitation) => (
                    <Tr key={invitation.id}>
                      <Td className="max-w-64 truncate" title={invitation.email}>
                        {invitation.email}
                      </Td>
                      <Td>
                        <Badge>{roleName(invitation.role, t)}</Badge>
                      </Td>
                      <Td className="max-w-48 truncate text-fg-muted">
                        <bdi>{invitation.invitedBy}</bdi>
                      </Td>
                      <Td className="whitespace-nowrap">
                        <RelativeTime date={invitation.expiresAt} />
                      </Td>
                      <Td className="w-0 text-right">
                        <IconButton
                          size="sm"
                          label={t("invite.revoke", { email: invitation.email })}
                          icon={<TrashIcon className="size-3.5" />}
                          onClick={() => setRevoking(invitation)}
                          className="hover:text-danger-text"
                        />
                      </Td>
                    </Tr>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )
        }
      </QueryView>
      {revoking && (
        <RemoveDialog
          open
          title={t("invite.revokeTitle", { email: revoking.email })}
          description={t("invite.revokeDescription")}
          confirmLabel={t("invite.revokeConfirm")}
          remove={() => api.users.revokeInvitation({ id: revoking.id })}
          removedTitle={t("invite.revoked", { email: revoking.email })}
          failedTitle={t("invite.revokeFailed")}
          onClose={() => setRevoking(null)}
          onRemoved={() => {
            setRevoking(null);
            void queryClient.invalidateQueries({ queryKey: orpc.users.invitations.key() });
          }}
        />
      )}
    </Card>
  );
}
