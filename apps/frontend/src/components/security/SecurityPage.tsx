import type { Lang } from "../../lib/i18n.ts";
import { AppProviders } from "../AppProviders.tsx";
import { ImageDetail } from "./ImageDetail.tsx";
import { ImageList } from "./ImageList.tsx";

/** The security page (an island): the image list, or one image's detail when the address names it. */
export function SecurityPage({ lang, image }: { lang: Lang; image: string | null }) {
  return <AppProviders lang={lang}>{image ? <ImageDetail image={image} /> : <ImageList />}</AppProviders>;
}
