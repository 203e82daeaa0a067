DROP INDEX `deploy_history_created_at_idx`;--> statement-breakpoint
CREATE INDEX `deploy_history_created_at_id_idx` ON `deploy_history` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deploy_history_stack_idx` ON `deploy_history` (`stack`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deploy_history_actor_idx` ON `deploy_history` (`actor`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `deploy_history_success_idx` ON `deploy_history` (`success`,`created_at`,`id`);