import { useT } from "../I18nProvider.tsx";
import {
  EmptyState,
  IconButton,
  KeyIcon,
  RelativeTime,
  Table,
  TableBody,
  TableContainer,
  TableHead,
  Td,
  Th,
  Tr,
  TrashIcon,
} from "../ui/index.ts";
import { ExpiryCell, ScopeSummary } from "./ApiKeyScope.tsx";
import type { ApiKey } from "./ApiKeysSection.tsx";

interface ApiKeysTableProps {
  keys: ApiKey[];
  now: number;
  onDelete: (key: ApiKey) => void;
}

export function ApiKeysTable({ keys, now, onDelete }: ApiKeysTableProps) {
  const t = useT();
  if (keys.length === 0) {
    return (
      <EmptyState
        icon={<KeyIcon className="size-6" />}
        title={t("settings.keys.empty")}
        description={t("settings.keys.emptyHint")}
      />
    );
  }
  return (
    <TableContainer className="relative">
      <Table aria-label={t("settings.keys.title")}>
        <TableHead>
          <tr>
            <Th>{t("settings.keys.name")}</Th>
            <Th>{t("settings.keys.start")}</Th>
            <Th>{t("settings.keys.scope")}</Th>
            <Th>{t("settings.keys.expires")}</Th>
            <Th>{t("settings.keys.created")}</Th>
            <Th>{t("settings.keys.lastUsed")}</Th>
            <Th>
              <span className="sr-only">{t("settings.keys.actions")}</span>
            </Th>
          </tr>
        </TableHead>
        <TableBody>
          {keys.map((key) => (
            <Tr key={key.id}>
              <Td className="max-w-60 truncate font-medium" title={key.name}>
                {key.name}
              </Td>
              <Td>
                <code className="font-mono text-[0.8125rem] text-fg-muted">{key.start}…</code>
              </Td>
              <Td>
                <ScopeSummary scope={key.scope} />
              </Td>
              <Td>
                <ExpiryCell expiresAt={key.expiresAt} now={now} />
              </Td>
              <Td>
                <RelativeTime date={key.createdAt} />
              </Td>
              <Td>
                {key.lastUsedAt ? (
                  <RelativeTime date={key.lastUsedAt} />
                ) : (
                  <span className="text-fg-muted">{t("settings.keys.neverUsed")}</span>
                )}
              </Td>
              <Td className="w-0 text-right">
                <IconButton
                  size="sm"
                  label={t("settings.keys.delete", { name: key.name })}
                  icon={<TrashIcon className="size-3.5" />}
                  onClick={() => onDelete(key)}
                  className="hover:text-danger-text"
                />
              </Td>
            </Tr>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
