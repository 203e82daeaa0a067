import type { Lang } from "../../lib/i18n.ts";
import { I18nProvider } from "../I18nProvider.tsx";
import { Toaster } from "../ui/Toast.tsx";

/** The page's one toast region (an island). */
export function ShellToaster({ lang }: { lang: Lang }) {
  return (
    <I18nProvider lang={lang}>
      <Toaster />
    </I18nProvider>
  );
}
