import { StacksIcon } from "../icons.tsx";

export function Brand({ href }: { href?: string }) {
  const content = (
    <>
      <span className="grid size-7 place-items-center rounded-md bg-primary text-on-primary">
        <StacksIcon className="size-4" />
      </span>
      <span className="text-[0.9375rem] font-semibold tracking-tight">Stackgate</span>
    </>
  );
  if (!href) return <span className="inline-flex items-center gap-2">{content}</span>;
  return (
    <a href={href} className="inline-flex items-center gap-2 rounded-md">
      {content}
    </a>
  );
}
