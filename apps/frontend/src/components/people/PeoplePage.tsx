import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { InviteSection } from "./InviteSection.tsx";
import { PendingInvitations } from "./PendingInvitations.tsx";
import { PeopleSection } from "./PeopleSection.tsx";

export interface PeoplePageProps extends IslandProps {
  /** The signed-in admin: marked "you" in the list, and not offered to disable or delete. */
  userId: string;
}

/** Settings › People (an island, admins only): invite, the people, and the invitations still open. */
export function PeoplePage({ lang, role, userId }: PeoplePageProps) {
  return (
    <AppProviders lang={lang} role={role}>
      <div className="flex max-w-5xl flex-col gap-6">
        <InviteSection />
        <PeopleSection userId={userId} />
        <PendingInvitations />
      </div>
    </AppProviders>
  );
}
