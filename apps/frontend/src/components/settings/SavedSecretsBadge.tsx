import { Badge, LockIcon } from "../ui/index.ts";

/** Says that a write-only value is stored on the server, without ever showing it. */
export function SavedSecretsBadge({ label }: { label: string }) {
  return (
    <Badge tone="success">
      <LockIcon className="size-3" />
      {label}
    </Badge>
  );
}
