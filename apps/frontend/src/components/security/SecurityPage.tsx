import { AppProviders, type IslandProps } from "../AppProviders.tsx";
import { ImageDetail } from "./ImageDetail.tsx";
import { ImageList } from "./ImageList.tsx";

/** The security page (an island): the image list, or one image's detail when the address names it. */
export function SecurityPage({ lang, role, image }: IslandProps & { image: string | null }) {
  return (
    <AppProviders lang={lang} role={role}>
      {image ? <ImageDetail image={image} /> : <ImageList />}
    </AppProviders>
  );
}
