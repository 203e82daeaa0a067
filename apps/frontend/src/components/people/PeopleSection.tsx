import type { Role } from "@stackgate/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, orpc } from "../../lib/api.ts";
import { useT } from "../I18nProvider.tsx";
import { RemoveDialog } from "../settings/RemoveDialog.tsx";
import {
  Badge,
  Button,
  Card,
  IconButton,
  LockIcon,
  QueryView,
  RelativeTime,
  requestMessage,
  retryWithoutAnswer,
  StatusMark,
  showToast,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  TableOrList,
  Td,
  Th,
  Tr,
  TrashIcon,
} from "../ui/index.ts";
import { type Person, ROLES, roleName } from "./model.ts";

/** A select the height of a table row's buttons (the form fields' inputClasses are taller). */
const ROLE_SELECT_CLASSES =
  "h-8 w-36 rounded-md border border-control bg-surface pl-2.5 pr-8 text-sm text-fg disabled:opacity-60";

type Confirming = { kind: "disable" | "delete"; person: Person };

/** The people who can sign in: role, status and last sign-in, with the admin's actions on each. */
export function PeopleSection({ userId }: { userId: string }) {
  const t = useT();
  const queryClient = useQueryClient();
  const query = useQuery({ ...orpc.users.list.queryOptions(), retry: retryWithoutAnswer });
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: orpc.users.key() });

  const update = useMutation({
    mutationFn: (change: { person: Person; role?: Role; disabled?: boolean }) =>
      api.users.update({ id: change.person.id, role: change.role, disabled: change.disabled }),
    onSuccess: (updated, { person, role }) => {
      // The list shows the change at once: its refetch follows, and the role select never shows the old role meanwhile.
      queryClient.setQueryData(
        orpc.users.list.queryKey(),
        (list) => list && { users: list.users.map((each) => (each.id === updated.id ? updated : each)) },
      );
      let title: string;
      if (role) title = t("people.roleChanged", { name: person.name, role: roleName(updated.role, t) });
      else if (updated.disabled) title = t("people.disabledDone", { name: person.name });
      else title = t("people.enabledDone", { name: person.name });
      showToast({ tone: "success", title });
    },
    onError: (error, { person, role }) => {
      showToast({
        tone: "danger",
        title: t(role ? "people.roleChangeFailed" : "people.statusChangeFailed", { name: person.name }),
        description: requestMessage(error, t),
      });
    },
    onSettled: refresh,
  });

  const actions: PersonActions = {
    userId,
    pendingFor: update.isPending ? update.variables.person.id : null,
    changeRole: (person, role) => update.mutate({ person, role }),
    enable: (person) => update.mutate({ person, disabled: false }),
    askDisable: (person) => setConfirming({ kind: "disable", person }),
    askDelete: (person) => setConfirming({ kind: "delete", person }),
  };

  return (
    <Card title={t("people.title")} flush>
      <QueryView query={query} errorTitle={t("people.loadFailed")} padded>
        {({ users }) => (
          <TableOrList
            from="lg"
            table={<PeopleTable people={users} actions={actions} />}
            list={<PeopleList people={users} actions={actions} />}
          />
        )}
      </QueryView>
      {confirming?.kind === "disable" && (
        <RemoveDialog
          open
          title={t("people.disableTitle", { name: confirming.person.name })}
          description={t("people.disableDescription", { name: confirming.person.name })}
          confirmLabel={t("people.disableConfirm")}
          remove={() => api.users.update({ id: confirming.person.id, disabled: true })}
          removedTitle={t("people.disabledDone", { name: confirming.person.name })}
          failedTitle={t("people.statusChangeFailed", { name: confirming.person.name })}
          onClose={() => setConfirming(null)}
          onRemoved={() => {
            setConfirming(null);
            void refresh();
          }}
        />
      )}
      {confirming?.kind === "delete" && (
        <RemoveDialog
          open
          title={t("people.deleteTitle", { name: confirming.person.name })}
          description={t("people.deleteDescription", {
            name: confirming.person.name,
            email: confirming.person.email,
          })}
          confirmLabel={t("people.deleteConfirm")}
          remove={() => api.users.remove({ id: confirming.person.id })}
          removedTitle={t("people.deleted", { name: confirming.person.name })}
          failedTitle={t("people.deleteFailed", { name: confirming.person.name })}
          onClose={() => setConfirming(null)}
          onRemoved={() => {
            setConfirming(null);
            void refresh();
          }}
        />
      )}
    </Card>
  );
}

interface PersonActions {
  userId: string;
  /** The person whose change is on its way: their controls wait for it. */
  pendingFor: string | null;
  changeRole: (person: Person, role: Role) => void;
  enable: (person: Person) => void;
  askDisable: (person: Person) => void;
  askDelete: (person: Person) => void;
}

interface PeopleViewProps {
  people: Person[];
  actions: PersonActions;
}

function PeopleTable({ people, actions }: PeopleViewProps) {
  const t = useT();
  return (
    <TableContainer>
      <Table aria-label={t("people.title")}>
        <TableHead>
          <tr>
            <Th>{t("people.name")}</Th>
            <Th>{t("people.email")}</Th>
            <Th>{t("people.role")}</Th>
            <Th>{t("people.status")}</Th>
            <Th>{t("people.lastSignIn")}</Th>
            <Th>
              <span className="sr-only">{t("people.actions")}</span>
            </Th>
          </tr>
        </TableHead>
        <TableBody>
          {people.map((person) => (
            <Tr key={person.id}>
              <Td className="max-w-56 font-medium">
                <PersonName person={person} self={person.id === actions.userId} />
              </Td>
              <Td className="max-w-64 truncate text-fg-muted" title={person.email}>
                {person.email}
              </Td>
              <Td>
                <RoleControl person={person} actions={actions} />
              </Td>
              <Td>
                <PersonStatus person={person} />
              </Td>
              <Td className="whitespace-nowrap">
                <LastSignIn person={person} />
              </Td>
              <Td className="w-0">
                <PersonButtons person={person} actions={actions} />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function PeopleList({ people, actions }: PeopleViewProps) {
  const t = useT();
  return (
    <ul aria-label={t("people.title")} className="divide-y divide-line">
      {people.map((person) => (
        <li key={person.id} className="flex flex-col gap-2 px-4 py-3">
          <div className="flex items-start justify-between gap-3">
            <div className="min-w-0">
              <p className="font-medium">
                <PersonName person={person} self={person.id === actions.userId} />
              </p>
              <p className="break-all text-fg-muted">{person.email}</p>
            </div>
            <PersonStatus person={person} />
          </div>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <RoleControl person={person} actions={actions} />
            <span className="text-xs text-fg-muted">
              {t("people.lastSignIn")}: <LastSignIn person={person} />
            </span>
          </div>
          <PersonButtons person={person} actions={actions} />
        </li>
      ))}
    </ul>
  );
}

function PersonName({ person, self }: { person: Person; self: boolean }) {
  const t = useT();
  return (
    <span className="inline-flex min-w-0 max-w-full items-center gap-1.5">
      <bdi className="truncate" title={person.name}>
        {person.name}
      </bdi>
      {self && <span className="shrink-0 text-xs font-normal text-fg-muted">({t("people.you")})</span>}
    </span>
  );
}

/** A select for the role, or the role and why it cannot be changed here when it comes from the provider. */
function RoleControl({ person, actions }: { person: Person; actions: PersonActions }) {
  const t = useT();
  if (person.sso) {
    return (
      <span className="inline-flex flex-wrap items-center gap-1.5" title={t("people.ssoHint")}>
        <Badge>{roleName(person.role, t)}</Badge>
        <Badge tone="progress">
          <LockIcon className="size-3" />
          {t("people.sso")}
        </Badge>
      </span>
    );
  }
  return (
    <select
      aria-label={t("people.roleOf", { name: person.name })}
      value={person.role}
      disabled={actions.pendingFor === person.id}
      onChange={(event) => actions.changeRole(person, event.currentTarget.value as Role)}
      className={ROLE_SELECT_CLASSES}
    >
      {ROLES.map((role) => (
        <option key={role} value={role}>
          {roleName(role, t)}
        </option>
      ))}
    </select>
  );
}

function PersonStatus({ person }: { person: Person }) {
  const t = useT();
  return person.disabled ? (
    <StatusMark tone="neutral" label={t("people.disabled")} />
  ) : (
    <StatusMark tone="success" label={t("people.active")} />
  );
}

function LastSignIn({ person }: { person: Person }) {
  const t = useT();
  return person.lastSignInAt ? <RelativeTime date={person.lastSignInAt} /> : t("people.neverSignedIn");
}

/** Disable or enable, and delete; never offered on one's own row (that would lock oneself out). */
function PersonButtons({ person, actions }: { person: Person; actions: PersonActions }) {
  const t = useT();
  if (person.id === actions.userId) return null;
  const pending = actions.pendingFor === person.id;
  return (
    <div className="flex items-center justify-end gap-1.5">
      {person.disabled ? (
        <Button
          size="sm"
          loading={pending}
          aria-label={t("people.enableLabel", { name: person.name })}
          onClick={() => actions.enable(person)}
        >
          {t("people.enable")}
        </Button>
      ) : (
        <Button
          size="sm"
          disabled={pending}
          aria-label={t("people.disableLabel", { name: person.name })}
          onClick={() => actions.askDisable(person)}
        >
          {t("people.disable")}
        </Button>
      )}
      <IconButton
        size="sm"
        label={t("people.delete", { name: person.name })}
        icon={<TrashIcon className="size-3.5" />}
        onClick={() => actions.askDelete(person)}
        className="hover:text-danger-text"
      />
    </div>
  );
}
