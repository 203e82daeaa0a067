import { useT } from "../I18nProvider.tsx";
import { Button, CopyButton, Dialog, Notice } from "../ui/index.ts";

interface NewApiKeyDialogProps {
  /** The key just created, with its full value; null closes the dialog. */
  created: { name: string; key: string } | null;
  /** Forgets the key: after this it exists nowhere in the browser. */
  onClose: () => void;
}

/** The one and only time a full API key is shown. */
export function NewApiKeyDialog({ created, onClose }: NewApiKeyDialogProps) {
  const t = useT();
  return (
    <Dialog
      open={created !== null}
      onClose={onClose}
      title={created ? t("settings.keys.createdTitle", { name: created.name }) : ""}
      footer={
        <Button variant="primary" onClick={onClose}>
          {t("settings.keys.createdDone")}
        </Button>
      }
    >
      {created && (
        <div className="flex flex-col gap-3">
          <Notice tone="warning" title={t("settings.keys.onceWarning")}>
            {t("settings.keys.onceHint")}
          </Notice>
          <div className="flex flex-col gap-1">
            <span className="text-xs font-medium text-fg-muted">{t("settings.keys.fullKey")}</span>
            <div className="flex items-start gap-1 rounded-md border border-line bg-surface-muted p-2">
              <code className="min-w-0 flex-1 break-all px-1 py-0.5 font-mono text-[0.8125rem]">
                {created.key}
              </code>
              <CopyButton value={created.key} label={t("settings.keys.copy")} />
            </div>
          </div>
          <p className="text-xs text-fg-muted">
            {t("settings.keys.usage")} <code className="font-mono">x-api-key</code>
          </p>
        </div>
      )}
    </Dialog>
  );
}
