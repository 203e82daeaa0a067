export * from "../icons.tsx";
export { Badge, StatusMark, type StatusMarkProps } from "./Badge.tsx";
export { Button, type ButtonProps, type ButtonSize, type ButtonVariant, buttonClasses } from "./Button.tsx";
export { Card, type CardProps } from "./Card.tsx";
export { Code, type CodeProps } from "./Code.tsx";
export { CodeBlock, type CodeBlockProps } from "./CodeBlock.tsx";
export { CopyButton, type CopyButtonProps } from "./CopyButton.tsx";
export { ConfirmDialog, type ConfirmDialogProps, Dialog, type DialogProps } from "./Dialog.tsx";
export { EmptyState, type EmptyStateProps } from "./EmptyState.tsx";
export { ErrorState, type ErrorStateProps } from "./ErrorState.tsx";
export {
  inputClasses,
  SelectField,
  type SelectFieldProps,
  TextField,
  type TextFieldProps,
} from "./Field.tsx";
export { type FilterChipOption, FilterChips, type FilterChipsProps } from "./FilterChips.tsx";
export { IconButton, type IconButtonProps } from "./IconButton.tsx";
export { LoadingState } from "./LoadingState.tsx";
export { NoKomodoConnection, type NoKomodoConnectionProps } from "./NoKomodoConnection.tsx";
export { Notice, type NoticeProps } from "./Notice.tsx";
export { QueryView, type QueryViewProps } from "./QueryView.tsx";
export { RelativeTime } from "./RelativeTime.tsx";
export { RequestProblem, type RequestProblemProps } from "./RequestProblem.tsx";
export { errorMessage, errorStatus, retryUpstreamRead, retryWithoutAnswer } from "./request-error.ts";
export { describeLoadError, requestMessage } from "./request-message.ts";
export { SearchField, type SearchFieldProps } from "./SearchField.tsx";
export { Skeleton, SkeletonLines } from "./Skeleton.tsx";
export { SortableTh, type SortableThProps, type SortDirection } from "./SortableTh.tsx";
export { Spinner } from "./Spinner.tsx";
export { StackLink, stackHref } from "./StackLink.tsx";
export { Switch, type SwitchProps } from "./Switch.tsx";
export { Table, TableBody, TableContainer, TableHead, Td, Th, Tr } from "./Table.tsx";
export { TableOrList, type TableOrListProps } from "./TableOrList.tsx";
export { dismissToast, showToast, Toaster, type ToastInput } from "./Toast.tsx";
export { type Tone, toneClasses } from "./tone.ts";
export { formatDuration, useNow } from "./useNow.ts";
export { useProgressiveList } from "./useProgressiveList.ts";
